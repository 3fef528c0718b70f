/*
 * test_cuda_conformance.c - run every scenario of the cuda corpus
 * (tests/data/cuda_conformance_scenarios.jsonl, format in
 * docs/cuda-semantics.md §9) through a fresh cuda-mode session and compare
 * each op's result with cuda_conformance_expected.jsonl exactly: node ids,
 * capture ids, error numbers, dependency sets, unjoined lists and the
 * graphs of successful ends.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cJSON.h"
#include "cuda_ops.h"
#include "jsonl.h"
#include "sc_cuda.h"

#define SCENARIOS SC_TEST_DATA_DIR "/cuda_conformance_scenarios.jsonl"
#define EXPECTED  SC_TEST_DATA_DIR "/cuda_conformance_expected.jsonl"

static void mismatch(run *r, int i, const cJSON *op, const cJSON *want, const cJSON *got)
{
    char *o = cJSON_PrintUnformatted(op);
    char *w = cJSON_PrintUnformatted(want), *g = cJSON_PrintUnformatted(got);
    failf(r, "op %d %s: expected %s, got %s", i, o ? o : "?", w ? w : "?", g ? g : "?");
    free(o);
    free(w);
    free(g);
}

static bool run_scenario(run *r, const cJSON *sc, const cJSON *exp)
{
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(sc, "ops");
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(exp, "results");
    if (!cJSON_IsArray(ops) || !cJSON_IsArray(want) ||
        cJSON_GetArraySize(ops) != cJSON_GetArraySize(want)) {
        failf(r, "malformed scenario or expectation");
        return false;
    }
    sc_cuda *cu = NULL;
    assert_int_equal(sc_cuda_create(&cu), 0);
    int i = 0;
    const cJSON *op;
    cJSON_ArrayForEach(op, ops)
    {
        cJSON *got = run_op(r, cu, op);
        const cJSON *w = cJSON_GetArrayItem(want, i);
        if (!cJSON_Compare(w, got, 1))
            mismatch(r, i, op, w, got);
        cJSON_Delete(got);
        i++;
    }
    sc_cuda_discard(cu);
    for (uint32_t id = 1; id <= sc_cuda_capture_count(cu); id++) {
        sc_cuda_capture_info ci;
        assert_int_equal(sc_cuda_capture_get(cu, id, &ci), 0);
        if (ci.state < SC_CUDA_STATE_COMPLETED)
            failf(r, "capture %u has not ended after discard", (unsigned)id);
    }
    sc_cuda_destroy(cu);
    return !r->failed;
}

static void t_corpus(void **state)
{
    (void)state;
    run_corpus("cuda conformance", SCENARIOS, EXPECTED, 62, run_scenario);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
