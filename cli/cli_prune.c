/*
 * cli_prune.c - `streamcap graph pin|unpin ID` and the part of `streamcap
 * prune` the daemon does (store.prune): its own policy, or --older-than,
 * --keep, --max-db-size and --log-older-than (docs/operations.md).
 */
#include "cli.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_units.h"

/* graph.pin with `pinned`, its result said as the other graph commands do. */
static int pin(cli *x, int argc, char **argv, bool pinned)
{
    uint64_t id;
    if (cli_graph_id_args(x, argc, argv, 1, &id) != CLI_OK || cli_connect(x) != CLI_OK)
        return CLI_ERROR;
    char params[96];
    snprintf(params, sizeof params, "{\"graph\":%llu,\"pinned\":%s}", (unsigned long long)id,
             pinned ? "true" : "false");
    char *result = NULL;
    int rc = sc_client_call_raw(x->c, "graph.pin", params, &result);
    free(result);
    if (rc != 0)
        return cli_call_fail(x, rc);
    return cli_report_done(x, "graph", id, pinned ? "pinned" : "unpinned");
}

int cli_graph_pin(cli *x, int argc, char **argv)
{
    return pin(x, argc, argv, true);
}

int cli_graph_unpin(cli *x, int argc, char **argv)
{
    return pin(x, argc, argv, false);
}

int cli_prune_daemon_opt(cli *x, int argc, char **argv, int *i, const char **keep,
                         const char **max_db_size, const char **log_older_than)
{
    const char *v = NULL;
    int r;
    uint64_t n;
    int64_t ms;
    if ((r = cli_take_opt(argc, argv, i, "--keep", &v)) != 0) {
        if (r < 0 || cli_parse_uint(v, 1, 1ull << 40, &n) != 0)
            return cli_usage_fail(x, "--keep takes a number of graphs (at least 1)"), -1;
        *keep = v;
    } else if ((r = cli_take_opt(argc, argv, i, "--max-db-size", &v)) != 0) {
        if (r < 0 || sc_parse_bytes(v, strlen(v), &n) != 0)
            return cli_usage_fail(x, "--max-db-size takes a size such as 10G or 500M"), -1;
        *max_db_size = v;
    } else if ((r = cli_take_opt(argc, argv, i, "--log-older-than", &v)) != 0) {
        if (r < 0 || sc_parse_age(v, strlen(v), &ms) != 0)
            return cli_usage_fail(x, "--log-older-than takes a duration such as 30s, 15m, 2h, "
                                     "7d or 2w"),
                   -1;
        *log_older_than = v;
    } else {
        return 0;
    }
    return 1;
}

/* The request's params: each given value as the daemon takes it. */
static char *prune_params(bool dry_run, const char *older_than, const char *keep,
                          const char *max_db_size, const char *log_older_than)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    if (dry_run)
        cJSON_AddTrueToObject(o, "dry_run");
    if (older_than)
        cJSON_AddStringToObject(o, "older_than", older_than);
    if (keep)
        cJSON_AddNumberToObject(o, "keep", strtod(keep, NULL));
    if (max_db_size)
        cJSON_AddStringToObject(o, "max_db_size", max_db_size);
    if (log_older_than)
        cJSON_AddStringToObject(o, "log_older_than", log_older_than);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

static uint64_t member_u64(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && v->valuedouble > 0 ? (uint64_t)v->valuedouble : 0;
}

/* The text form: each id a dry run names, then one line of counts. */
static void print_result(const cJSON *res)
{
    bool dry = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "dry_run"));
    const cJSON *id;
    if (dry)
        cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(res, "graphs"))
            printf("would delete graph %.0f\n", id->valuedouble);
    uint64_t n = member_u64(res, dry ? "count" : "deleted");
    printf("%s %llu graph%s (%llu nodes, about %llu of %llu bytes in use)",
           dry ? "would delete" : "deleted", (unsigned long long)n, n == 1 ? "" : "s",
           (unsigned long long)member_u64(res, "nodes"),
           (unsigned long long)member_u64(res, "bytes"),
           (unsigned long long)member_u64(res, "db_bytes"));
    if (!dry)
        printf(", %llu log row%s", (unsigned long long)member_u64(res, "log_rows"),
               member_u64(res, "log_rows") == 1 ? "" : "s");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "more")))
        printf("; more remain: run it again");
    printf("\n");
}

int cli_prune_daemon(cli *x, bool dry_run, const char *older_than, const char *keep,
                     const char *max_db_size, const char *log_older_than)
{
    char *params = prune_params(dry_run, older_than, keep, max_db_size, log_older_than);
    if (!params)
        return cli_fail(x, "out of memory");
    char *result = NULL;
    int rc = sc_client_call_raw(x->c, "store.prune", params, &result);
    free(params);
    if (rc != 0) {
        int code = sc_client_errcode(x->c);
        if (code == 0)
            return cli_call_fail(x, rc);
        return cli_fail_code(x, code, "%s", sc_client_errmsg(x->c));
    }
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        sc_buf_puts(&b, result);
        free(result);
        return cli_emit_json(x, &b);
    }
    cJSON *res = cJSON_Parse(result);
    free(result);
    if (!res)
        return cli_fail(x, "the daemon's reply is not JSON");
    print_result(res);
    cJSON_Delete(res);
    return CLI_OK;
}
