/*
 * jsonl.h - read a JSON Lines corpus file into memory, one string per
 * non-empty line (the conformance tests of both modes share it).
 */
#ifndef SC_TEST_JSONL_H
#define SC_TEST_JSONL_H

#include <stddef.h>

typedef struct lines {
    char **line;
    size_t count;
} lines;

/** Read every non-empty line of `path` (line ends stripped); fails the test
 *  when the file cannot be opened. */
void read_lines(const char *path, lines *out);
void free_lines(lines *l);

#endif
