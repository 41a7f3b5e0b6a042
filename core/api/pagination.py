"""The API's page numbers: ``?page=`` is a page number or absent, as the schema says."""

from rest_framework.pagination import PageNumberPagination


class StrictPageNumberPagination(PageNumberPagination):
    """DRF's pagination, except that ``?page=`` (empty) and ``?page=last`` are not numbers: they get
    the 404 of any other page that is not one, instead of silently meaning page 1 or the last."""

    last_page_strings = ()

    def get_page_number(self, request, paginator):
        return request.query_params.get(self.page_query_param, 1)
