from django.contrib.auth.models import User
from django.core.management.base import BaseCommand

from annotation.demo import seed_review_demo


class Command(BaseCommand):
    help = (
        "Demo review data on top of seed_demo: clinician tracks, a finished and an open "
        "calibration round, and a study with assignments and some submitted scores. Idempotent."
    )

    def handle(self, *args, **options):
        actor = User.objects.filter(username="researcher").first()
        self.stdout.write(seed_review_demo(actor))
