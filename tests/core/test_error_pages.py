"""404 and 500 pages in the site's layout, in both languages."""

import pytest
from django.test import RequestFactory
from django.utils import translation
from django.views.defaults import server_error


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "title"), [("zh-hans", "页面不存在"), ("en", "Page not found")])
def test_an_unknown_page_is_a_404_in_the_layout(client, staff_user, language, title):
    client.force_login(staff_user)
    response = client.get("/no-such-page/", HTTP_ACCEPT_LANGUAGE=language)
    html = response.content.decode()
    assert response.status_code == 404
    assert title in html and 'class="topbar"' in html and "/trade/" in html


@pytest.mark.parametrize(("language", "title"), [("zh-hans", "服务器出错"), ("en", "Server error")])
def test_a_server_error_page_needs_no_request_context(language, title):
    with translation.override(language):
        response = server_error(RequestFactory().get("/"))
    html = response.content.decode()
    assert response.status_code == 500
    assert title in html and 'class="topbar"' in html and "favicon.svg" in html
