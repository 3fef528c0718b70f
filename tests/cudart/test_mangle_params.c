/*
 * sc_mangle_const_params against a table of kernel names nvcc produced
 * (plain kernels, a namespaced template, and CUB's and Thrust's kernels,
 * whose parameters are mostly template parameters and substitutions),
 * each with the parameters c++filt demangles it to; and the names it must
 * refuse without reading past their end.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mangle_params.h"

typedef struct row {
    const char *name;
    const char *modes; /* per parameter: r pointer or reference to const, w otherwise */
} row;

/* Each name with the parameter list c++filt gives it, in the comment. */
static const row table[] = {
    /* relu(float const*, float*, int) */
    {"_Z4reluPKfPfi", "rww"},
    /* sk(S, S const*, float&, double const&) */
    {"_Z2sk1SPKS_RfRKd", "wrwr"},
    /* vk(float const volatile*, float const volatile*, float**, float const**):
     * PVKf and its substitution S0_; a pointer to a pointer to const is
     * no pointer to const */
    {"_Z2vkPVKfS0_PPfPPKf", "rrww"},
    /* the other order of the qualifiers reads the same */
    {"_Z2vkPKVfPPf", "rw"},
    /* void ns::tk<float, 4>(float const*, float*, float const*, int volatile*, float* const*):
     * a template (its return type skipped), T_ and S1_, S3_, S4_ */
    {"_ZN2ns2tkIfLi4EEEvPKT_PS1_S3_PViPKS4_", "rwrwr"},
    /* internal linkage inside the nested name */
    {"_ZN2nsL2tkIfLi4EEEvPKT_PS1_S3_PViPKS4_", "rwrwr"},
    /* void cub::...::DeviceRadixSortSingleTileKernel<..., float, NullType, unsigned long
     * long, ...>(float const*, float*, NullType const*, NullType*, unsigned long long, int,
     * int, identity_decomposer_t) */
    {"_ZN3cub17CUB_300001_SM_9006detail10radix_sort31DeviceRadixSortSingleTileKernelINS1_5radix"
     "10policy_hubIfNS0_8NullTypeEyE10Policy1000ELNS0_9SortOrderE0EfS6_yNS1_21identity_"
     "decomposer_tEEEvPKT1_PSB_PKT2_PSF_T3_iiT4_",
     "rwrwwwww"},
    /* DeviceRadixSortOnesweepKernel<...>(int*, int*, unsigned long long*, unsigned long long
     * const*, float*, float const*, NullType*, NullType const*, int, int, int,
     * identity_decomposer_t) */
    {"_ZN3cub17CUB_300001_SM_9006detail10radix_sort29DeviceRadixSortOnesweepKernelINS1_5radix"
     "10policy_hubIfNS0_8NullTypeEyE10Policy1000ELNS0_9SortOrderE0EfS6_yiiNS1_21identity_"
     "decomposer_tEEEvPT5_SC_PT3_PKSD_PT1_PKSH_PT2_PKSL_T4_iiT6_",
     "wwwrwrwrwwww"},
    /* DeviceRadixSortHistogramKernel<...>(unsigned long long*, float const*, unsigned long
     * long, int, int, identity_decomposer_t) */
    {"_ZN3cub17CUB_300001_SM_9006detail10radix_sort30DeviceRadixSortHistogramKernelINS1_5radix"
     "10policy_hubIfNS0_8NullTypeEyE10Policy1000ELNS0_9SortOrderE0EfyNS1_21identity_"
     "decomposer_tEEEvPT2_PKT1_SB_iiT3_",
     "wrwwww"},
    /* DeviceReduceKernel<..., float*, unsigned int, plus<void>, float, __identity>(float*,
     * float*, unsigned int, GridEvenShare<unsigned int>, plus<void>, __identity) */
    {"_ZN3cub17CUB_300001_SM_9006detail6reduce18DeviceReduceKernelINS2_10policy_hubIfjN4cuda3std"
     "3__44plusIvEEE10Policy1000EPfjS9_fNS7_10__identityEEEvT0_PT3_T1_NS0_13GridEvenShareISH_"
     "EET2_T4_",
     "wwwwww"},
    /* the same with a const input iterator: (float const*, float*, ...) */
    {"_ZN3cub17CUB_300001_SM_9006detail6reduce18DeviceReduceKernelINS2_10policy_hubIfjN4cuda3std"
     "3__44plusIvEEE10Policy1000EPKfjS9_fNS7_10__identityEEEvT0_PT3_T1_NS0_13GridEvenShareISI_"
     "EET2_T4_",
     "rwwwww"},
    /* DeviceReduceSingleTileKernel<..., float const*, float*, unsigned int, ...>(float const*,
     * float*, unsigned int, plus<void>, float, __identity) */
    {"_ZN3cub17CUB_300001_SM_9006detail6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIfjN4"
     "cuda3std3__44plusIvEEE10Policy1000EPKfPfjS9_ffNS7_10__identityEEEvT0_T1_T2_T3_T4_T6_",
     "rwwwww"},
    /* DeviceScanKernel<..., float*, float*, ScanTileState<float, true>, ...>(float*, float*,
     * ScanTileState<float, true>, int, plus<void>, NullType, unsigned int) */
    {"_ZN3cub17CUB_300001_SM_9006detail4scan16DeviceScanKernelINS2_10policy_hubIfffjN4cuda3std3__"
     "44plusIvEEE10Policy1000EPfSC_NS0_13ScanTileStateIfLb1EEES9_NS0_8NullTypeEjfLb0ESF_EEvT0_"
     "T1_T2_iT3_T4_T5_",
     "wwwwwww"},
    /* DeviceScanInitKernel<ScanTileState<float, true> >(ScanTileState<float, true>, int) */
    {"_ZN3cub17CUB_300001_SM_9006detail4scan20DeviceScanInitKernelINS0_13ScanTileStateIfLb1EEEEEv"
     "T_i",
     "ww"},
    /* EmptyKernel<void>(): no parameters */
    {"_ZN3cub17CUB_300001_SM_9006detail11EmptyKernelIvEEvv", ""},
    /* for_each::static_kernel<..., unsigned long, __uninitialized_fill::functor<device_ptr<
     * float>, float> >(unsigned long, functor<...>) */
    {"_ZN3cub17CUB_300001_SM_9006detail8for_each13static_kernelINS2_12policy_hub_t12policy_500_"
     "tEmN6thrust23THRUST_300001_SM_900_NS8cuda_cub20__uninitialized_fill7functorINS7_10device_"
     "ptrIfEEfEEEEvT0_T1_",
     "ww"},
    /* Thrust's transform through CUB: transform_kernel<..., int, neg, normal_iterator<...>,
     * float*>(int, int, neg, normal_iterator<...>, kernel_arg<float*>): the last is a pack
     * expansion over one element (Dp ... T3_) */
    {"_ZN3cub17CUB_300001_SM_9006detail9transform16transform_kernelINS2_10policy_hubILb1EN4cuda3"
     "std3__45tupleIJN6thrust23THRUST_300001_SM_900_NS6detail15normal_iteratorINSA_10device_"
     "ptrIfEEEEEEEE10policy1000Ei3negSF_JPfEEEvT0_iT1_T2_DpNS2_10kernel_argIT3_EE",
     "wwwww"},
    /* cudaLaunchKernelEx<unsigned long long*, unsigned long long* const&>(cudaLaunchConfig_st
     * const*, void (*)(unsigned long long*), unsigned long long* const&): Args&&... of a pack of
     * references collapses to the references */
    {"_Z18cudaLaunchKernelExIJPyEJRKS0_EE9cudaErrorPK19cudaLaunchConfig_stPFvDpT_EDpOT0_", "rwr"},
    /* unexpected<cudaError>::unexpected<cudaError&, true, 0>(cudaError&): a constructor
     * template has no return type */
    {"_ZN4cuda3std3__410unexpectedI9cudaErrorEC1IRS3_Lb1ELi0EEEOT_", "w"},
    /* a pack of pointers to const expanded at the top: k<float, int>(float const*, int const*) */
    {"_Z1kIJfiEEvDpPKT_", "rr"},
    /* an empty pack: k<>() */
    {"_Z1kIJEEvDpPKT_", ""},
    /* a closure type from a local name as a template argument, then T_ twice:
     * void k<host()::{lambda(float)#1}>(host()::{lambda(float)#1}, float const*, float*) */
    {"_Z1kIZ4hostvEUlfE_EvT_PKfPf", "wrw"},
    /* std:: names: f(std::pair<int, int> const&, unsigned long*) */
    {"_Z1fRKSt4pairIiiEPm", "rw"},
    /* f(void (*)(float const*), float const (&) [4]): a function pointer is no pointer to
     * const data, a reference to an array of const elements is */
    {"_Z1fPFvPKfERA4_Kf", "wr"},
    /* a const pointer to a const pointer: float const* const* */
    {"_Z1fPKPKf", "r"},
    /* a trailing clone suffix is ignored */
    {"_Z4reluPKfPfi.isra.0", "rww"},
};

static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        bool ro[64];
        size_t n = 99;
        int rc = sc_mangle_const_params(table[i].name, ro, 64, &n);
        if (rc != 0)
            fail_msg("%s: %d", table[i].name, rc);
        char got[65] = {0};
        for (size_t j = 0; j < n && j < 64; j++)
            got[j] = ro[j] ? 'r' : 'w';
        if (strcmp(got, table[i].modes) != 0)
            fail_msg("%s: got '%s', want '%s'", table[i].name, got, table[i].modes);
    }
}

/* What it must refuse: not mangled (extern "C"), not a function, cut
 * short, references past the table, expressions, decltype. */
static void test_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "relu",                            /* extern "C" */
        "",                                /* nothing */
        "_Z",                              /* nothing after the prefix */
        "_Z4relu",                         /* a variable's name: no parameters */
        "_Z4reluPK",                       /* cut inside a type */
        "_Z9relu",                         /* a source name longer than the rest */
        "_Z1fS5_",                         /* a substitution never made */
        "_ZN2ns1fE",                       /* nested, no parameters */
        "_ZN2ns1fIiEEv",                   /* a template without its parameters: only a return */
        "_Z1fIXadL_Z1gvEEEvv",             /* an expression argument */
        "_Z1fIiEDTcl1gfp_EET_",            /* decltype */
        "_Z1fIJiEEvDpPKi",                 /* a pack expansion naming no pack */
        "_Z1fPi$",                         /* garbage after the parameters */
        "_ZN2ns",                          /* cut inside a nested name */
        "_Z1fI",                           /* cut inside template arguments */
        "_Z1kIZ4hostvEUlfE_EvT_PKfPf\001", /* a stray byte */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bool ro[8];
        size_t n;
        int rc = sc_mangle_const_params(bad[i], ro, 8, &n);
        if (rc != -EINVAL)
            fail_msg("'%s': %d, want -EINVAL", bad[i], rc);
    }
    bool ro[2];
    size_t n;
    assert_int_equal(sc_mangle_const_params(NULL, ro, 2, &n), -EINVAL);
    assert_int_equal(sc_mangle_const_params("_Z1fv", ro, 2, NULL), -EINVAL);
}

/* Past max parameters, and nesting past the reader's depth: -E2BIG. */
static void test_limits(void **state)
{
    (void)state;
    bool ro[3];
    size_t n;
    assert_int_equal(sc_mangle_const_params("_Z1fPKfPfi", ro, 3, &n), 0);
    assert_int_equal(n, 3);
    assert_int_equal(sc_mangle_const_params("_Z1fPKfPfii", ro, 3, &n), -E2BIG);
    /* a pack expansion past max */
    assert_int_equal(sc_mangle_const_params("_Z1kIJfifiEEvDpPKT_", ro, 3, &n), -E2BIG);
    /* a pointer 2,000 levels deep */
    char deep[2100] = "_Z1f";
    memset(deep + 4, 'P', 2000);
    strcpy(deep + 2004, "f");
    assert_int_equal(sc_mangle_const_params(deep, ro, 3, &n), -E2BIG);
    /* "v" alone is no parameter at all, even with no room */
    assert_int_equal(sc_mangle_const_params("_Z1fv", NULL, 0, &n), 0);
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
