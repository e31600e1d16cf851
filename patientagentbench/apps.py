from django.apps import AppConfig


class PatientAgentBenchConfig(AppConfig):
    name = "patientagentbench"
    verbose_name = "Benchmark pipeline"
