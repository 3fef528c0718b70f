/* The method table, and its agreement with proto/openrpc.json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_methods.h"
#include "sc_rpc.h"

#ifndef SC_PROTO_DIR
#error "SC_PROTO_DIR must point at the proto/ source directory"
#endif

static bool valid_name(const char *s)
{
    const char *dot = strchr(s, '.');
    if (!dot || dot == s || !dot[1] || strchr(dot + 1, '.'))
        return false;
    for (const char *p = s; *p; p++)
        if (p != dot && !((*p >= 'a' && *p <= 'z') || *p == '_'))
            return false;
    return true;
}

static void test_table_entries(void **state)
{
    (void)state;
    assert_true(SC_M__COUNT > 0);
    for (size_t i = 0; i < SC_M__COUNT; i++) {
        const sc_method_desc *m = &sc_methods[i];
        assert_int_equal(m->id, i);
        assert_non_null(m->name);
        if (!valid_name(m->name))
            fail_msg("bad method name '%s'", m->name);
        assert_non_null(m->params);
        assert_int_equal(m->params[0], '{');
        assert_non_null(m->result);
        assert_int_equal(m->result[0], '{');
        assert_non_null(m->summary);
        assert_true(strlen(m->summary) > 0);
        for (size_t j = 0; j < i; j++)
            if (strcmp(sc_methods[j].name, m->name) == 0)
                fail_msg("method '%s' listed twice", m->name);
        assert_ptr_equal(sc_method_lookup(m->name, strlen(m->name)), m);
    }
    assert_ptr_equal(sc_method_lookup("capture.end", 11), &sc_methods[SC_M_CAPTURE_END]);
    assert_string_equal(sc_methods[SC_M_SESSION_OPEN].name, "session.open");
    assert_string_equal(sc_methods[SC_M_SERVER_INFO].name, "server.info");
}

static void test_lookup_unknown(void **state)
{
    (void)state;
    const char *bad[] = {"",
                         "session",
                         "session.",
                         ".open",
                         "Session.open",
                         "session.open ",
                         " session.open",
                         "session.opens",
                         "session_open",
                         "capture.record"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (sc_method_lookup(bad[i], strlen(bad[i])))
            fail_msg("'%s' found", bad[i]);
    /* Length is honoured: a prefix or an embedded NUL does not match. */
    assert_null(sc_method_lookup("session.open", 11));
    assert_null(sc_method_lookup("session.open\0x", 14));
    assert_ptr_equal(sc_method_lookup("session.openXYZ", 12), &sc_methods[SC_M_SESSION_OPEN]);
    assert_null(sc_method_lookup(NULL, 0));
}

/* ---- OpenRPC document ---- */

static cJSON *load_openrpc(void)
{
    const char *path = SC_PROTO_DIR "/openrpc.json";
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            text = realloc(text, cap);
            assert_non_null(text);
        }
        size_t n = fread(text + len, 1, cap - len, f);
        if (n == 0)
            break;
        len += n;
    }
    fclose(f);
    /* The document must pass the protocol's own strict parser. */
    sc_jdoc doc;
    sc_jdoc_init(&doc);
    sc_rpc_error err;
    int rc = sc_jdoc_parse(&doc, text, len, &err);
    sc_jdoc_free(&doc);
    if (rc != 0)
        fail_msg("%s: %s", path, err.message);
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    assert_non_null(root);
    return root;
}

static const cJSON *openrpc_method(const cJSON *methods, const char *name)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, methods)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(m, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
            return m;
    }
    return NULL;
}

/* The session-scoped methods are exactly the session.*, capture.* and
 * stream.* ones. */
static void test_on_session(void **state)
{
    (void)state;
    assert_true(sc_method_on_session(SC_M_SESSION_OPEN));
    assert_true(sc_method_on_session(SC_M_SESSION_INFO));
    assert_true(sc_method_on_session(SC_M_CAPTURE_BEGIN));
    assert_true(sc_method_on_session(SC_M_CAPTURE_END));
    assert_true(sc_method_on_session(SC_M_STREAM_CREATE));
    assert_true(sc_method_on_session(SC_M_CAPTURE_HOST_CALL));
    assert_false(sc_method_on_session(SC_M_GRAPH_GET));
    assert_false(sc_method_on_session(SC_M_GRAPH_DELETE));
    assert_false(sc_method_on_session(SC_M_LOG_LIST));
    assert_false(sc_method_on_session(SC_M_SERVER_INFO));
    assert_false(sc_method_on_session(SC_M__COUNT));
    unsigned n = 0;
    for (int m = 0; m < SC_M__COUNT; m++)
        n += sc_method_on_session((sc_method_id)m);
    assert_int_equal(n, 24); /* 4 session.*, 19 capture.* and 1 stream.* methods */
}

/* The scheduling flags: which writes are held, which requests wait for
 * held writes to commit. */
static void test_flags(void **state)
{
    (void)state;
    unsigned holdable = 0;
    for (int m = 0; m < SC_M__COUNT; m++) {
        const sc_method_desc *d = &sc_methods[m];
        bool family_session = strncmp(d->name, "session.", 8) == 0 ||
                              strncmp(d->name, "capture.", 8) == 0 ||
                              strncmp(d->name, "stream.", 7) == 0;
        assert_int_equal(sc_method_has((sc_method_id)m, SC_MF_SESSION), family_session);
        /* Everything else reads the store, so it waits for held writes. */
        assert_int_equal(sc_method_has((sc_method_id)m, SC_MF_READS_STORE), !family_session);
        holdable += sc_method_has((sc_method_id)m, SC_MF_HOLDABLE);
    }
    assert_int_equal(holdable, 2);
    assert_true(sc_method_has(SC_M_SESSION_CLOSE, SC_MF_HOLDABLE | SC_MF_WRITES_STORE));
    assert_true(sc_method_has(SC_M_CAPTURE_END, SC_MF_HOLDABLE | SC_MF_WRITES_STORE));
    /* session.open waits for its commit: a request after it names the session. */
    assert_true(sc_method_has(SC_M_SESSION_OPEN, SC_MF_WRITES_STORE));
    assert_false(sc_method_has(SC_M_SESSION_OPEN, SC_MF_HOLDABLE));
    assert_true(sc_method_has(SC_M_GRAPH_DELETE, SC_MF_WRITES_STORE | SC_MF_READS_STORE));
    /* graph.submit replies after its commit, behind the connection's held writes. */
    assert_true(sc_method_has(SC_M_GRAPH_SUBMIT, SC_MF_WRITES_STORE | SC_MF_READS_STORE));
    assert_false(sc_method_has(SC_M_GRAPH_SUBMIT, SC_MF_SESSION));
    assert_false(sc_method_has(SC_M_CAPTURE_BEGIN, SC_MF_WRITES_STORE));
    assert_false(sc_method_has(SC_M__COUNT, 0));
}

static void test_openrpc_names_match_table(void **state)
{
    (void)state;
    cJSON *doc = load_openrpc();
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "openrpc");
    assert_true(cJSON_IsString(v));
    assert_string_equal(v->valuestring, "1.2.6");
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(doc, "info");
    assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(info, "title")));
    assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(info, "version")));
    const cJSON *methods = cJSON_GetObjectItemCaseSensitive(doc, "methods");
    assert_true(cJSON_IsArray(methods));

    for (size_t i = 0; i < SC_M__COUNT; i++)
        if (!openrpc_method(methods, sc_methods[i].name))
            fail_msg("openrpc.json lacks method '%s' of sc_methods.h", sc_methods[i].name);

    int count = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, methods)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(m, "name");
        if (!cJSON_IsString(n))
            fail_msg("openrpc.json method %d has no name", count);
        if (!sc_method_lookup(n->valuestring, strlen(n->valuestring)))
            fail_msg("openrpc.json has method '%s' that sc_methods.h lacks", n->valuestring);
        if (openrpc_method(methods, n->valuestring) != m)
            fail_msg("openrpc.json lists '%s' twice", n->valuestring);
        count++;
    }
    assert_int_equal(count, SC_M__COUNT);
    cJSON_Delete(doc);
}

/*
 * Field names of a table summary such as "{graph, from, to} | {graph, pairs}"
 * or "{limit?, before?}": the union over the alternatives; a field is
 * required when it has no '?' and appears in every alternative.
 */
#define MAX_FIELDS 24
typedef struct {
    char name[MAX_FIELDS][40];
    bool required[MAX_FIELDS];
    int count;
} fields;

static int field_index(const fields *f, const char *name)
{
    for (int i = 0; i < f->count; i++)
        if (strcmp(f->name[i], name) == 0)
            return i;
    return -1;
}

static void summary_fields(const char *s, fields *out)
{
    memset(out, 0, sizeof *out);
    int alts = 1;
    int seen[MAX_FIELDS] = {0};
    for (const char *p = s; *p;) {
        if (*p == '|') {
            alts++;
            p++;
            continue;
        }
        if (!((*p >= 'a' && *p <= 'z') || *p == '_')) {
            p++;
            continue;
        }
        char name[40];
        size_t n = 0;
        while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_') {
            assert_true(n + 1 < sizeof name);
            name[n++] = *p++;
        }
        name[n] = '\0';
        bool optional = *p == '?';
        int i = field_index(out, name);
        if (i < 0) {
            assert_true(out->count < MAX_FIELDS);
            i = out->count++;
            strcpy(out->name[i], name);
            out->required[i] = true;
        }
        if (optional)
            out->required[i] = false;
        seen[i]++;
    }
    for (int i = 0; i < out->count; i++)
        if (seen[i] < alts)
            out->required[i] = false;
}

static const cJSON *resolve(const cJSON *doc, const cJSON *schema)
{
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(schema, "$ref");
    if (!cJSON_IsString(ref))
        return schema;
    const char *prefix = "#/components/schemas/";
    assert_int_equal(strncmp(ref->valuestring, prefix, strlen(prefix)), 0);
    const cJSON *schemas = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "components"), "schemas");
    const cJSON *target =
        cJSON_GetObjectItemCaseSensitive(schemas, ref->valuestring + strlen(prefix));
    if (!target)
        fail_msg("dangling $ref %s", ref->valuestring);
    return target;
}

static void check_params(const char *method, const fields *want, const cJSON *params)
{
    assert_true(cJSON_IsArray(params));
    int count = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, params)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
        const cJSON *req = cJSON_GetObjectItemCaseSensitive(p, "required");
        assert_true(cJSON_IsString(name));
        assert_non_null(cJSON_GetObjectItemCaseSensitive(p, "schema"));
        int i = field_index(want, name->valuestring);
        if (i < 0)
            fail_msg("%s: openrpc.json param '%s' is not in sc_methods.h", method,
                     name->valuestring);
        if (cJSON_IsTrue(req) != want->required[i])
            fail_msg("%s: param '%s' required=%d in openrpc.json, %d in sc_methods.h", method,
                     name->valuestring, cJSON_IsTrue(req), want->required[i]);
        count++;
    }
    if (count != want->count)
        fail_msg("%s: %d params in openrpc.json, %d in sc_methods.h (%s)", method, count,
                 want->count, sc_methods[sc_method_lookup(method, strlen(method))->id].params);
}

static void check_result(const cJSON *doc, const char *method, const fields *want,
                         const cJSON *result)
{
    const cJSON *schema = resolve(doc, cJSON_GetObjectItemCaseSensitive(result, "schema"));
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
    const cJSON *required = cJSON_GetObjectItemCaseSensitive(schema, "required");
    assert_true(cJSON_IsObject(props));
    int count = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, props)
    {
        int i = field_index(want, p->string);
        if (i < 0)
            fail_msg("%s: result member '%s' is not in sc_methods.h", method, p->string);
        bool req = false;
        const cJSON *r;
        cJSON_ArrayForEach(r, required)
        {
            if (cJSON_IsString(r) && strcmp(r->valuestring, p->string) == 0)
                req = true;
        }
        if (req != want->required[i])
            fail_msg("%s: result member '%s' required=%d in openrpc.json, %d in sc_methods.h",
                     method, p->string, req, want->required[i]);
        count++;
    }
    if (count != want->count)
        fail_msg("%s: %d result members in openrpc.json, %d in sc_methods.h", method, count,
                 want->count);
}

static void test_openrpc_fields_match_table(void **state)
{
    (void)state;
    cJSON *doc = load_openrpc();
    const cJSON *methods = cJSON_GetObjectItemCaseSensitive(doc, "methods");
    for (size_t i = 0; i < SC_M__COUNT; i++) {
        const sc_method_desc *d = &sc_methods[i];
        const cJSON *m = openrpc_method(methods, d->name);
        assert_non_null(m);
        fields want;
        summary_fields(d->params, &want);
        check_params(d->name, &want, cJSON_GetObjectItemCaseSensitive(m, "params"));
        summary_fields(d->result, &want);
        check_result(doc, d->name, &want, cJSON_GetObjectItemCaseSensitive(m, "result"));
    }
    cJSON_Delete(doc);
}

/* PROTOCOL.md has a section for every method, and none for others. */
static void test_protocol_md_sections(void **state)
{
    (void)state;
    const char *path = SC_PROTO_DIR "/PROTOCOL.md";
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    bool seen[SC_M__COUNT] = {false};
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "### ", 4) != 0)
            continue;
        char *name = line + 4;
        name[strcspn(name, "\r\n")] = '\0';
        const sc_method_desc *m = sc_method_lookup(name, strlen(name));
        if (!m)
            fail_msg("PROTOCOL.md documents '%s', which sc_methods.h lacks", name);
        if (seen[m->id])
            fail_msg("PROTOCOL.md documents '%s' twice", name);
        seen[m->id] = true;
    }
    fclose(f);
    for (size_t i = 0; i < SC_M__COUNT; i++)
        if (!seen[i])
            fail_msg("PROTOCOL.md has no section for '%s'", sc_methods[i].name);
}

/* The summary reader itself, on the table's two unusual shapes. */
static void test_summary_fields(void **state)
{
    (void)state;
    fields f;
    summary_fields("{graph, from, to} | {graph, pairs}", &f);
    assert_int_equal(f.count, 4);
    assert_true(f.required[field_index(&f, "graph")]);
    assert_false(f.required[field_index(&f, "from")]);
    assert_false(f.required[field_index(&f, "pairs")]);
    summary_fields("{limit?, before?, label}", &f);
    assert_int_equal(f.count, 3);
    assert_false(f.required[field_index(&f, "limit")]);
    assert_true(f.required[field_index(&f, "label")]);
    summary_fields("{}", &f);
    assert_int_equal(f.count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_entries),
        cmocka_unit_test(test_lookup_unknown),
        cmocka_unit_test(test_on_session),
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_openrpc_names_match_table),
        cmocka_unit_test(test_summary_fields),
        cmocka_unit_test(test_openrpc_fields_match_table),
        cmocka_unit_test(test_protocol_md_sections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
