/*
 * cli_run_fail.c - streamcap run --fail-on: the conditions a CI job can
 * fail the run on, judged from the report alone, so that the text and
 * JSON summaries and the exit status always agree.
 */
#define _XOPEN_SOURCE 700

#include "cli_run.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sc_report.h"

static const struct {
    const char *name;
    unsigned bit;
} conditions[] = {
    {"unreachable", RUN_FAIL_UNREACHABLE},
    {"failed", RUN_FAIL_FAILED},
    {"unsupported", RUN_FAIL_UNSUPPORTED},
    {"none-stored", RUN_FAIL_NONE_STORED},
    {"races", RUN_FAIL_RACES},
};
#define NCONDITIONS (sizeof(conditions) / sizeof(conditions[0]))

const char *cli_run_fail_name(unsigned bit)
{
    for (size_t i = 0; i < NCONDITIONS; i++) {
        if (conditions[i].bit == bit)
            return conditions[i].name;
    }
    return "?";
}

static int parse_word(const char *w, size_t n, unsigned *out, char *err, size_t errlen)
{
    if (n == 3 && strncmp(w, "all", 3) == 0) {
        *out |= RUN_FAIL_ALL;
        return 0;
    }
    for (size_t i = 0; i < NCONDITIONS; i++) {
        if (strlen(conditions[i].name) == n && strncmp(w, conditions[i].name, n) == 0) {
            *out |= conditions[i].bit;
            return 0;
        }
    }
    snprintf(err, errlen,
             "--fail-on: unknown condition '%.*s' (want unreachable, failed, unsupported, "
             "none-stored, races or all, separated by commas)",
             (int)(n > 64 ? 64 : n), w);
    return -1;
}

int cli_run_fail_parse(const char *list, unsigned *out, char *err, size_t errlen)
{
    *out = 0;
    if (!*list) {
        snprintf(err, errlen, "--fail-on takes a list of conditions");
        return -1;
    }
    for (const char *s = list;;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        if (parse_word(s, n, out, err, errlen) != 0)
            return -1;
        if (!comma)
            return 0;
        s = comma + 1;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

size_t cli_run_graph_ids(const run_report *r, uint64_t **out)
{
    uint64_t *ids = malloc((r->nitems + 1) * sizeof *ids);
    size_t n = 0;
    for (size_t i = 0; ids && i < r->nitems; i++)
        if (r->items[i].has_graph)
            ids[n++] = r->items[i].graph;
    if (ids)
        qsort(ids, n, sizeof *ids, cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || ids[k - 1] != ids[i])
            ids[k++] = ids[i];
    *out = ids;
    return ids ? k : 0;
}

static size_t count_items(const run_report *r, const char *outcome)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nitems; i++)
        n += cli_run_outcome_is(&r->items[i], outcome);
    return n;
}

static void say(run_fail *f, unsigned bit, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(run_fail *f, unsigned bit, const char *fmt, ...)
{
    size_t i = 0;
    while ((1u << i) != bit)
        i++;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->reason[i], sizeof(f->reason[i]), fmt, ap);
    va_end(ap);
    f->held |= bit;
}

static void check_unreachable(const run_report *r, run_fail *f)
{
    size_t unreachable = 0, lost = 0;
    for (size_t i = 0; i < r->nprocs; i++) {
        const char *d = r->procs[i].daemon;
        unreachable += d && strcmp(d, "unreachable") == 0;
        lost += d && strcmp(d, "lost") == 0;
    }
    if (unreachable && lost)
        say(f, RUN_FAIL_UNREACHABLE,
            "no daemon was reachable for %zu process%s, and %zu lost its connection", unreachable,
            unreachable == 1 ? "" : "es", lost);
    else if (unreachable)
        say(f, RUN_FAIL_UNREACHABLE, "no daemon was reachable for %zu process%s", unreachable,
            unreachable == 1 ? "" : "es");
    else if (lost)
        say(f, RUN_FAIL_UNREACHABLE, "%zu process%s lost the daemon's connection", lost,
            lost == 1 ? "" : "es");
    else if (r->nprocs == 0 && r->daemon_error)
        say(f, RUN_FAIL_UNREACHABLE,
            "the program left no report and the daemon could not be "
            "asked what it stored");
}

/* The races of every stored graph, counted by the daemon (limit 0: the
 * count alone, so the cost is the analysis, not the listing). */
static void check_races(cli *x, const run_report *r, run_fail *f)
{
    uint64_t *ids = NULL;
    size_t n = cli_run_graph_ids(r, &ids);
    if (!ids) {
        say(f, RUN_FAIL_RACES, "out of memory while listing the run's graphs");
        return;
    }
    uint64_t total = 0, racing = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        sc_client_races res = {0};
        if (cli_connect(x) != CLI_OK || sc_client_graph_races(x->c, ids[i], 0, &res) != 0) {
            say(f, RUN_FAIL_RACES, "graph %llu could not be checked for races: %s",
                (unsigned long long)ids[i], x->c ? sc_client_errmsg(x->c) : "no daemon");
            free(ids);
            return;
        }
        if (res.count && !racing++)
            first = ids[i];
        total += res.count;
        sc_client_races_free(&res);
    }
    free(ids);
    if (racing)
        say(f, RUN_FAIL_RACES,
            "%llu race%s in %llu graph%s (streamcap graph races %llu shows the first)",
            (unsigned long long)total, total == 1 ? "" : "s", (unsigned long long)racing,
            racing == 1 ? "" : "s", (unsigned long long)first);
}

void cli_run_fail_check(cli *x, unsigned want, const run_report *r, run_fail *f)
{
    memset(f, 0, sizeof(*f));
    f->want = want;
    if (want & RUN_FAIL_UNREACHABLE)
        check_unreachable(r, f);
    size_t failed = count_items(r, SC_REPORT_FAILED);
    if ((want & RUN_FAIL_FAILED) && failed)
        say(f, RUN_FAIL_FAILED, "%zu capture%s failed", failed, failed == 1 ? "" : "s");
    if ((want & RUN_FAIL_UNSUPPORTED) && r->nunsupported) {
        char list[256] = "";
        size_t len = 0;
        for (size_t i = 0; i < r->nunsupported && len < sizeof(list); i++)
            len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
                                    r->unsupported[i]);
        say(f, RUN_FAIL_UNSUPPORTED, "the program called what the stand-in does not support: %s",
            list);
    }
    if ((want & RUN_FAIL_NONE_STORED) && count_items(r, SC_REPORT_STORED) == 0)
        say(f, RUN_FAIL_NONE_STORED, "no graph was stored");
    if (want & RUN_FAIL_RACES)
        check_races(x, r, f);
}

void cli_run_fail_print(FILE *out, const run_end *end, const run_fail *f)
{
    for (size_t i = 0; i < NCONDITIONS; i++) {
        if (!(f->held & conditions[i].bit))
            continue;
        char *p = cli_printable(f->reason[i]);
        fprintf(out, "streamcap run: failing on %s: %s\n", conditions[i].name, p ? p : "");
        free(p);
    }
    if (f->held)
        fprintf(out, "streamcap run: exit status %d (the program's was %d)\n", RUN_FAIL_STATUS,
                end->status);
}

void cli_run_fail_json(sc_buf *b, bool *first, const run_fail *f)
{
    bool ff;
    sc_json_key(b, first, "fail_on");
    sc_json_obj_begin(b, &ff);
    sc_json_key(b, &ff, "conditions");
    sc_buf_putc(b, '[');
    bool any = false;
    for (size_t i = 0; i < NCONDITIONS; i++) {
        if (!(f->want & conditions[i].bit))
            continue;
        if (any)
            sc_buf_putc(b, ',');
        any = true;
        sc_json_cstr(b, conditions[i].name);
    }
    sc_buf_putc(b, ']');
    sc_json_key(b, &ff, "held");
    sc_buf_putc(b, '[');
    any = false;
    for (size_t i = 0; i < NCONDITIONS; i++) {
        if (!(f->held & conditions[i].bit))
            continue;
        bool hf;
        if (any)
            sc_buf_putc(b, ',');
        any = true;
        sc_json_obj_begin(b, &hf);
        sc_json_member_cstr(b, &hf, "condition", conditions[i].name);
        sc_json_member_cstr(b, &hf, "reason", f->reason[i]);
        sc_json_obj_end(b);
    }
    sc_buf_putc(b, ']');
    sc_json_key(b, &ff, "status");
    if (f->held)
        sc_json_i64(b, RUN_FAIL_STATUS);
    else
        sc_buf_puts(b, "null");
    sc_json_obj_end(b);
}
