/*
 * cuda_events.c - the log.event notifications of cuda-mode captures: begun,
 * invalidated by a call, ended (with the row the capture log keeps of it)
 * and their graphs stored.
 */
#include "sc_session_ops.h"

void sc_cuda_emit_begun(sc_daemon *d, const sc_session *s, uint32_t capture, uint32_t stream,
                        const char *mode, uint32_t thread)
{
    sc_subs_emit(d, &(sc_event){.event = "capture_begun",
                                .uid = s->uid,
                                .session = s->id,
                                .capture = capture,
                                .has_stream = true,
                                .stream = stream,
                                .mode = mode,
                                .has_thread = true,
                                .thread = thread});
}

/* The CUDA function a capture.host_call named for `capture`, if kept. */
static const sc_call_note *find_note(const sc_session *s, uint32_t capture)
{
    for (const sc_call_note *n = s->calls; n; n = n->next)
        if (n->capture == capture)
            return n;
    return NULL;
}

void sc_cuda_emit_invalidations(sc_daemon *d, const sc_session *s, uint64_t seq_before)
{
    uint64_t seq = sc_cuda_call_seq(s->cu);
    if (seq == seq_before)
        return;
    /* The captures this call invalidated carry its sequence number. */
    for (uint32_t id = sc_cuda_capture_count(s->cu); id >= 1; id--) {
        sc_cuda_capture_info ci;
        if (sc_cuda_capture_get(s->cu, id, &ci) != 0 || !ci.invalidated || ci.why.seq != seq)
            continue;
        const sc_call_note *note = find_note(s, id);
        sc_subs_emit(d, &(sc_event){.event = "capture_invalidated",
                                    .uid = s->uid,
                                    .session = s->id,
                                    .capture = id,
                                    .why = {.method = sc_cuda_call_name(ci.why.call),
                                            .stream = ci.why.stream,
                                            .has_event = ci.why.has_event,
                                            .event = ci.why.event,
                                            .thread = ci.why.thread,
                                            .call = note ? note->name : NULL,
                                            .call_len = note ? note->len : 0,
                                            .has_error = true,
                                            .cuda_error = sc_cuda_error_number(ci.why.error)}});
    }
}

void sc_cuda_emit_ended(sc_daemon *d, uint32_t uid, uint64_t session, const sc_store_capture *row,
                        int64_t graph, const sc_graph *g, const char *label, size_t label_len)
{
    sc_event e = {.event = "capture_ended",
                  .uid = uid,
                  .session = session,
                  .capture = row->capture,
                  .graph = graph > 0 ? (uint64_t)graph : 0,
                  .outcome = row->outcome,
                  .has_counts = true,
                  .node_count = g ? sc_graph_node_count(g) : row->node_count,
                  .edge_count = g ? sc_graph_edge_count(g) : 0,
                  .cuda_error = row->cuda_error};
    if (row->inv_method)
        e.why = (sc_event_why){.method = row->inv_method,
                               .stream = row->inv_stream,
                               .has_event = row->inv_has_event,
                               .event = row->inv_event,
                               .thread = row->inv_thread,
                               .call = row->inv_call,
                               .call_len = row->inv_call_len,
                               .has_error = true,
                               .cuda_error = row->inv_error};
    sc_subs_emit(d, &e);
    if (!e.graph)
        return;
    sc_subs_emit(d, &(sc_event){.event = "graph_stored",
                                .uid = uid,
                                .session = session,
                                .capture = row->capture,
                                .graph = e.graph,
                                .has_counts = true,
                                .node_count = e.node_count,
                                .edge_count = e.edge_count,
                                .label = label ? label : "",
                                .label_len = label ? label_len : 0});
}
