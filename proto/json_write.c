/*
 * A parsed value written back as JSON text (sc_jval_write, sc_json.h): the
 * tokens of sc_jdoc_parse in the order they were read, integers as
 * integers and other numbers with the 17 digits that read back the same.
 */
#include "sc_json.h"

#include <math.h>

static void write_number(sc_buf *b, const sc_jtok *t)
{
    if (t->flags & SC_JTOK_INT) {
        sc_json_i64(b, t->u.i);
        return;
    }
    if (!isfinite(t->u.d)) {
        sc_buf_append(b, "null", 4); /* JSON has no spelling for these */
        return;
    }
    sc_buf_printf(b, "%.17g", t->u.d);
}

/* Writes token i and its subtree; returns the index past it. */
static uint32_t write_tok(sc_buf *b, const sc_jdoc *d, uint32_t i)
{
    const sc_jtok *t = &d->tok[i];
    switch ((sc_jtype)t->type) {
    case SC_JFALSE:
        sc_json_bool(b, false);
        break;
    case SC_JTRUE:
        sc_json_bool(b, true);
        break;
    case SC_JNUMBER:
        write_number(b, t);
        break;
    case SC_JSTRING:
        sc_json_string(b, d->text + t->u.s.off, t->u.s.len);
        break;
    case SC_JARRAY:
    case SC_JOBJECT: {
        bool obj = t->type == SC_JOBJECT;
        sc_buf_putc(b, obj ? '{' : '[');
        for (uint32_t k = i + 1; k < t->end;) {
            if (k != i + 1)
                sc_buf_putc(b, ',');
            if (obj) {
                k = write_tok(b, d, k);
                sc_buf_putc(b, ':');
            }
            k = write_tok(b, d, k);
        }
        sc_buf_putc(b, obj ? '}' : ']');
        break;
    }
    default:
        sc_buf_append(b, "null", 4);
        break;
    }
    return t->end;
}

void sc_jval_write(sc_buf *b, sc_jval v)
{
    if (!v.doc) {
        sc_buf_append(b, "null", 4);
        return;
    }
    write_tok(b, v.doc, v.i);
}
