"""`Cache-Control: private, no-store` on everything a logged-in person is served.

Review pages, dashboards and exports hold blinded scores and patient conversations; no
shared cache may keep them, and the browser's back button after logging out must not show
them again from its own cache."""

from django.utils.cache import patch_cache_control


class NoStoreBehindLoginMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            patch_cache_control(response, private=True, no_store=True)
        return response
