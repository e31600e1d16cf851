from django.core.management.base import BaseCommand

from patientagentbench.suites.install import install_all_suites


class Command(BaseCommand):
    help = "Install or refresh the task suites shipped in fixtures/suites/ (idempotent)."

    def handle(self, *args, **options):
        for suite in install_all_suites():
            self.stdout.write(f"Suite {suite.name}: {suite.tasks.count()} tasks")
