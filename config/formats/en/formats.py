# Times everywhere (pages and admin) carry the zone they are shown in (TIME_ZONE): "T" is its
# abbreviation, e.g. 2026-03-01 14:05 CST for Asia/Shanghai.
DATE_FORMAT = "Y-m-d"
SHORT_DATE_FORMAT = "Y-m-d"
DATETIME_FORMAT = "Y-m-d H:i T"
SHORT_DATETIME_FORMAT = "Y-m-d H:i T"
TIME_FORMAT = "H:i T"
