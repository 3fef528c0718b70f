/*
 * graph_races.c - graph.races' parameters and result object from core's
 * race finder (docs/analyses.md).  The result is written on the thread
 * pool: nothing here touches the loop.
 */
#include <stdlib.h>

#include "sc_handlers.h"
#include "sc_races.h"

#define RACES_LIMIT_DEFAULT 1000
#define RACES_LIMIT_MAX     100000

static const char *mode_name(sc_access_mode m)
{
    switch (m) {
#define SC_X_MODE(suffix, name)                                                                    \
    case SC_ACCESS_##suffix:                                                                       \
        return name;
        SC_ACCESS_MODES(SC_X_MODE)
#undef SC_X_MODE
    }
    return "read";
}

/* limit: 0 (count only) to RACES_LIMIT_MAX, the rows kept in memory. */
static int read_limit(sc_jval params, uint64_t *limit, sc_rpc_error *err)
{
    *limit = RACES_LIMIT_DEFAULT;
    return sc_param_opt_u64(params, "limit", RACES_LIMIT_MAX, limit, err);
}

int sc_races_check_params(sc_req *r)
{
    uint64_t limit;
    return read_limit(r->params, &limit, &r->err) == 0 ? 0 : -1;
}

static void write_race(sc_buf *out, const sc_race *x)
{
    bool first;
    sc_json_obj_begin(out, &first);
    sc_json_member_u64(out, &first, "a", x->a);
    sc_json_member_u64(out, &first, "b", x->b);
    sc_json_member_u64(out, &first, "address", x->address);
    sc_json_member_u64(out, &first, "size", x->size);
    sc_json_member_cstr(out, &first, "a_mode", mode_name(x->a_mode));
    sc_json_member_cstr(out, &first, "b_mode", mode_name(x->b_mode));
    sc_json_obj_end(out);
}

int sc_graph_races_json(const sc_graph *g, sc_jval params, sc_buf *out)
{
    uint64_t limit;
    sc_rpc_error err = {0};
    if (read_limit(params, &limit, &err) != 0)
        return SC_EINVAL; /* checked before: not reached */
    sc_node_access *acc = NULL;
    size_t nacc = 0, nout = 0;
    uint64_t count = 0;
    sc_race *rows = limit ? malloc((size_t)limit * sizeof *rows) : NULL;
    int rc = limit && !rows ? SC_ENOMEM : sc_graph_node_accesses(g, &acc, &nacc);
    if (rc == 0)
        rc = sc_graph_find_races(g, acc, nacc, (size_t)limit, rows, &nout, &count);
    free(acc);
    if (rc != 0) {
        free(rows);
        return rc;
    }
    bool first;
    sc_json_obj_begin(out, &first);
    sc_json_key(out, &first, "races");
    sc_buf_putc(out, '[');
    for (size_t i = 0; i < nout; i++) {
        if (i > 0)
            sc_buf_putc(out, ',');
        write_race(out, &rows[i]);
    }
    sc_buf_putc(out, ']');
    sc_json_member_u64(out, &first, "count", count);
    sc_json_obj_end(out);
    free(rows);
    return 0;
}
