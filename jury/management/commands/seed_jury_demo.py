from django.core.management.base import BaseCommand

from jury.demo import seed_jury_demo


class Command(BaseCommand):
    help = (
        "Demo jury data on top of seed_demo: the panel sim-jury (three simulated judges) and "
        "its verdicts on the demo's scenario run. Idempotent."
    )

    def handle(self, *args, **options):
        self.stdout.write(seed_jury_demo())
