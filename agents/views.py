from django.contrib.admin.views.decorators import staff_member_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from .models import Agent


@require_GET
@staff_member_required
def home(request):
    agents = Agent.objects.filter(is_active=True).order_by("id")
    return render(request, "agents/home.html", {"agents": agents})
