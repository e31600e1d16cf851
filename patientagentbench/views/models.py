"""Model configurations (admins): the models runs can test, judge or play the patient with."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from patientagentbench.models import ModelConfig
from patientagentbench.roles import ADMIN, role_required
from patientagentbench.views.forms import ModelConfigForm


@role_required(ADMIN)
def model_list(request):
    return render(request, "models/list.html", {"models": ModelConfig.objects.all()})


@role_required(ADMIN)
def model_edit(request, pk=None):
    instance = get_object_or_404(ModelConfig, pk=pk) if pk else None
    form = ModelConfigForm(request.POST or None, instance=instance)
    if request.method == "POST" and form.is_valid():
        model = form.save()
        messages.success(request, f"Saved model {model.name}.")
        return redirect("model_list")
    return render(request, "models/edit.html", {"form": form, "instance": instance})


@role_required(ADMIN)
@require_POST
def model_toggle(request, pk):
    model = get_object_or_404(ModelConfig, pk=pk)
    model.enabled = not model.enabled
    model.save(update_fields=["enabled"])
    messages.success(request, f"{model.name} {'enabled' if model.enabled else 'disabled'}.")
    return redirect("model_list")
