/*
 * cli_backup.c - streamcap backup FILE: a copy of the daemon's database
 * (store.backup), written by the daemon while it serves.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <cjson/cJSON.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* FILE as an absolute path: the daemon resolves no path against our
 * working directory, which it does not know. */
static int absolute_path(cli *x, const char *file, char *out, size_t len)
{
    if (file[0] == '/') {
        if (strlen(file) >= len)
            return cli_usage_fail(x, "FILE is too long");
        strcpy(out, file);
        return CLI_OK;
    }
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return cli_fail(x, "cannot find the working directory to resolve %s", file);
    if ((size_t)snprintf(out, len, "%s/%s", cwd, file) >= len)
        return cli_usage_fail(x, "FILE is too long");
    return CLI_OK;
}

int cli_backup(cli *x, int argc, char **argv)
{
    bool overwrite = cli_flag_opt(&argc, argv, "--overwrite");
    if (argc < 1)
        return cli_usage_fail(x, "missing FILE");
    if (argc > 1)
        return cli_usage_fail(x, "unexpected argument '%s'", argv[1]);
    char path[PATH_MAX];
    if (absolute_path(x, argv[0], path, sizeof path) != CLI_OK)
        return CLI_ERROR;
    sc_buf params = SC_BUF_INIT;
    bool first;
    sc_json_obj_begin(&params, &first);
    sc_json_member_cstr(&params, &first, "path", path);
    if (overwrite) {
        sc_json_key(&params, &first, "overwrite");
        sc_json_bool(&params, true);
    }
    sc_json_obj_end(&params);
    sc_buf_putc(&params, '\0');
    if (sc_buf_failed(&params)) {
        sc_buf_free(&params);
        return cli_fail(x, "out of memory");
    }
    if (cli_connect(x) != CLI_OK) {
        sc_buf_free(&params);
        return CLI_ERROR;
    }
    char *result = NULL;
    int rc = sc_client_call_raw(x->c, "store.backup", params.data, &result);
    sc_buf_free(&params);
    if (rc != 0)
        return cli_call_fail(x, rc);
    int out = CLI_OK;
    if (x->json) {
        sc_buf b = SC_BUF_INIT;
        sc_buf_puts(&b, result);
        out = cli_emit_json(x, &b);
    } else {
        cJSON *v = cJSON_Parse(result);
        const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(v, "bytes");
        printf("backup written to %s (%.0f bytes)\n", path,
               cJSON_IsNumber(bytes) ? bytes->valuedouble : 0.0);
        cJSON_Delete(v);
        if (fflush(stdout) != 0)
            out = cli_stdout_failed(x);
    }
    free(result);
    return out;
}
