/*
 * read_text.h - a small file's text (up to 8 KiB), for the graph tests
 * that read what cudaGraphDebugDotPrint wrote.  Include after cmocka.h.
 */
#ifndef SC_TEST_READ_TEXT_H
#define SC_TEST_READ_TEXT_H

#include <stdio.h>

/** The file's text in a static buffer, overwritten by the next call. */
static inline char *sc_test_read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

#endif
