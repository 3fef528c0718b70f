/*
 * cli_kargs.c - a kernel node's argument values as `streamcap graph show`
 * prints and --json writes them.  The text is for reading: each parameter
 * as its size and value, a parameter of 1, 2, 4 or 8 bytes as the
 * little-endian integer it holds (a pointer reads as its address, an int
 * as its value), a larger one as its bytes in memory order.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* A parameter of a size read as one integer. */
static bool scalar(uint32_t size)
{
    return size == 1 || size == 2 || size == 4 || size == 8;
}

static void param_text(sc_buf *b, const uint8_t *p, uint32_t size)
{
    sc_buf_printf(b, "%u byte%s ", (unsigned)size, size == 1 ? "" : "s");
    if (scalar(size)) {
        sc_buf_puts(b, "0x");
        for (uint32_t i = size; i-- > 0;)
            sc_buf_printf(b, "%02x", p[i]);
        return;
    }
    uint32_t shown = size > CLI_KARGS_PARAM_BYTES ? CLI_KARGS_PARAM_BYTES : size;
    sc_buf_putc(b, '[');
    for (uint32_t i = 0; i < shown; i++)
        sc_buf_printf(b, i ? " %02x" : "%02x", p[i]);
    sc_buf_puts(b, shown < size ? " ...]" : "]");
}

void cli_kargs_text(sc_buf *b, const sc_client_node *n)
{
    if (!n->nparams || !n->args || !n->param_sizes)
        return;
    sc_buf_puts(b, "args: ");
    size_t at = 0;
    for (size_t i = 0; i < n->nparams; i++) {
        uint32_t size = n->param_sizes[i];
        if (size > n->args_len - at)
            break; /* the client checked the sizes; never taken */
        if (i == CLI_KARGS_PARAMS) {
            sc_buf_printf(b, "; ... %zu more", n->nparams - i);
            break;
        }
        if (i)
            sc_buf_puts(b, "; ");
        param_text(b, n->args + at, size);
        at += size;
    }
}
