"""Rubrics (researchers and admins): every rubric version a study, calibration round or panel
may name, the built-in ones and the team's own, and the import of a rubric file."""

from collections import Counter

from django import forms
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render

from annotation.models import Study
from jury.rubrics import MAX_FILE_BYTES, import_rubric, rubric_rows
from patientagentbench.roles import STAFF_ROLES, role_required
from ratings.rubric import RubricError, cached_rubric


class RubricFileForm(forms.Form):
    file = forms.FileField(
        required=False, help_text="The rubric's JSON file (docs/rubric.md, “Your own rubric”)."
    )
    text = forms.CharField(
        required=False,
        label="Or paste its JSON",
        widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}),
    )

    def clean(self):
        data = super().clean()
        upload, text = data.get("file"), (data.get("text") or "").strip()
        if not upload and not text:
            raise forms.ValidationError("Choose a rubric file or paste its JSON.")
        if upload and upload.size > MAX_FILE_BYTES:
            raise forms.ValidationError(f"The file is larger than {MAX_FILE_BYTES // 1000} kB.")
        data["content"] = upload.read() if upload else text
        return data


@role_required(*STAFF_ROLES)
def rubrics(request):
    form = RubricFileForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            imported = import_rubric(form.cleaned_data["content"], by=request.user)
        except RubricError as error:
            form.add_error(None, str(error))
        else:
            rubric = imported.rubric
            if imported.created:
                messages.success(request, f"Imported {rubric.name} v{rubric.version}.")
            else:
                messages.info(
                    request, f"{rubric.name} v{rubric.version} was already stored, same wording."
                )
            return redirect("research_rubric", name=rubric.name, version=rubric.version)
    used = Counter(Study.objects.values_list("rubric_name", "rubric_version"))
    rows = [(row, used.get((row.rubric.name, row.rubric.version), 0)) for row in rubric_rows()]
    return render(request, "annotation/research/rubrics.html", {"rows": rows, "form": form})


@role_required(*STAFF_ROLES)
def rubric(request, name: str, version: str):
    try:
        shown = cached_rubric(name, version)
    except RubricError:
        raise Http404("no such rubric version") from None
    studies = Study.objects.filter(rubric_name=name, rubric_version=version).order_by("-pk")
    return render(
        request,
        "annotation/research/rubric.html",
        {"rubric": shown, "studies": studies, "levels": shown.scale.points},
    )
