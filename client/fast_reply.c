/*
 * fast_reply.c - the reply of a record call read without a tree.
 *
 * In asynchronous mode nearly every reply is a record call's
 * {"jsonrpc":"2.0","id":ID,"result":{"node":N}}, and building a cJSON tree
 * for each (allocations, strtod, member lookups by strcmp) cost the I/O
 * thread more than moving the bytes.  The daemon writes that shape byte
 * for byte (sc_rpc_result_begin, then the node object), so it is matched
 * literally; anything else, errors included, is left to the full decoder.
 */
#include "client_int.h"

#include <string.h>

/* The daemon's envelope up to the id, and between the id and the result. */
static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
static const char mid[] = ",\"result\":{\"node\":";

/* The methods whose result decode_result (conn.c) reads as {node}. */
static bool node_result(sc_method_id m)
{
    return m == SC_M_CAPTURE_RECORD_KERNEL || m == SC_M_CAPTURE_RECORD_MEMCPY ||
           m == SC_M_CAPTURE_RECORD_MEMSET || m == SC_M_CAPTURE_RECORD_HOST_CALLBACK ||
           m == SC_M_CAPTURE_RECORD_MEM_ALLOC || m == SC_M_CAPTURE_RECORD_MEM_FREE ||
           m == SC_M_CAPTURE_ADD_NODE;
}

static bool take(const char **p, const char *end, const char *s, size_t n)
{
    if ((size_t)(end - *p) < n || memcmp(*p, s, n) != 0)
        return false;
    *p += n;
    return true;
}

/* An integer as the daemon writes one: 1 to 15 digits, no leading zero
 * (so exact as a double, as the full decoder reads it). */
static bool take_uint(const char **p, const char *end, uint64_t *out)
{
    const char *q = *p;
    uint64_t v = 0;
    while (q < end && *q >= '0' && *q <= '9' && q - *p < 16)
        v = v * 10 + (uint64_t)(*q++ - '0');
    size_t n = (size_t)(q - *p);
    if (n == 0 || n > 15 || (n > 1 && **p == '0'))
        return false;
    *p = q;
    *out = v;
    return true;
}

bool sc_cl_fast_reply(sc_method_id m, uint64_t id, const char *line, size_t len, sc_client_reply *r)
{
    const char *p = line, *end = line + len;
    uint64_t got, node;
    if (!node_result(m) || !take(&p, end, head, sizeof head - 1) || !take_uint(&p, end, &got) ||
        got != id || !take(&p, end, mid, sizeof mid - 1))
        return false;
    if (take(&p, end, "null", 4))
        node = UINT64_MAX; /* a cuda-mode stream that was not capturing */
    else if (!take_uint(&p, end, &node) || node > UINT32_MAX)
        return false;
    if (!take(&p, end, "}}", 2) || p != end)
        return false;
    memset(r, 0, sizeof(*r));
    r->method = sc_methods[m].name;
    r->id = node;
    return true;
}
