/*
 * sc_options.h - streamcapd's command-line options, from one table.
 *
 * The table drives the parser, `--help` and, through the man_pages test,
 * the option list of dist/man/streamcapd.8: an option added here appears
 * in all three or that test fails.
 */
#ifndef SC_OPTIONS_H
#define SC_OPTIONS_H

#include <stdio.h>

#include "sc_daemon.h"

/** Sets one option's value in the configuration: 0, or -1 after saying
 *  why on stderr.  `flag` is the option as given ("--max-message"). */
typedef int sc_option_set_fn(const char *flag, const char *value, sc_config *cfg);

/** One option of the command line. */
typedef struct sc_option {
    const char *name;      /* "--socket" */
    char short_name;       /* 'h' for -h; 0: none */
    const char *arg;       /* the value's name in --help ("PATH"); NULL: takes none */
    const char *help;      /* --help's text, its lines joined by '\n' */
    sc_option_set_fn *set; /* NULL for --help and --version, which main answers */
} sc_option;

/** Every option, in --help's order; `count` set to their number. */
const sc_option *sc_options(size_t *count);

/** What a command line asks for, when it is valid. */
enum { SC_OPTIONS_RUN = 0, SC_OPTIONS_HELP, SC_OPTIONS_VERSION };

/**
 * Read argv into `cfg` (defaults set beforehand): SC_OPTIONS_RUN, or
 * SC_OPTIONS_HELP / SC_OPTIONS_VERSION at the first -h, --help or
 * --version; -1 after saying on stderr what was wrong.  Every option that
 * takes a value takes it as the next argument, never as --name=value: a
 * --db value may hold a password and is never repeated in a message.
 */
int sc_options_parse(int argc, char **argv, sc_config *cfg);

/** The text of `streamcapd --help`. */
void sc_options_usage(FILE *out);

#endif
