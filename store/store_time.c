/*
 * store_time.c - the database's time format, ISO 8601 UTC with
 * milliseconds.  Civil-date arithmetic is done by hand (proleptic
 * Gregorian, days since 1970-01-01) so neither gmtime_r nor timegm, nor
 * the process time zone, is involved.
 */
#include <stdio.h>

#include "store_int.h"

#define MS_PER_DAY 86400000LL

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

void store_time_format(int64_t ms, char out[STORE_TIME_BUF])
{
    int64_t days = ms / MS_PER_DAY;
    int64_t rem = ms % MS_PER_DAY;
    if (rem < 0) {
        rem += MS_PER_DAY;
        days -= 1;
    }
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    int secs = (int)(rem / 1000);
    snprintf(out, STORE_TIME_BUF, "%04lld-%02u-%02uT%02d:%02d:%02d.%03dZ", (long long)y, m, d,
             secs / 3600, secs / 60 % 60, secs % 60, (int)(rem % 1000));
}

/* Digits s[0..n) as a number, or -1 if any is not a digit. */
static int digits(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

bool store_time_parse(const char *s, size_t len, int64_t *ms)
{
    if (len != STORE_TIME_LEN || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
        s[16] != ':' || s[19] != '.' || s[23] != 'Z')
        return false;
    int y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2);
    int h = digits(s + 11, 2), mi = digits(s + 14, 2), sec = digits(s + 17, 2);
    int milli = digits(s + 20, 3);
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
        sec < 0 || sec > 59 || milli < 0)
        return false;
    int64_t days = days_from_civil(y, (unsigned)mo, (unsigned)d);
    *ms = days * MS_PER_DAY + ((int64_t)h * 3600 + mi * 60 + sec) * 1000 + milli;
    return true;
}
