/*
 * rt_devices.c - the devices the stand-in can emulate, from their public
 * specifications (NVIDIA's datasheets and the CUDA programming guide's
 * per-architecture tables), and the choice among them: STREAMCAP_DEVICE
 * names one (`streamcap run --device NAME` sets it); unset, the device is
 * the H100-like part the stand-in has always emulated.  Where a datasheet
 * does not give a figure (persisting-L2 limits) it is the same fraction of
 * L2 as on the parts that report it.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rt_int.h"

#define KIB(n) ((long long)(n) << 10)
#define MIB(n) ((long long)(n) << 20)
#define GIB(n) ((long long)(n) << 30)

static const sc_rt_devspec g_devices[] = {
    /* The default: what the stand-in reported before devices could be
     * chosen, name included. */
    {"default", "streamcap emulated GPU (sm_90)", 9, 0, 132, GIB(80), 2048, 32, KIB(228), KIB(227),
     KIB(1), MIB(50), MIB(30), 5120, 1980000, 2619000},
    {"V100", "Tesla V100-SXM2-32GB", 7, 0, 80, GIB(32), 2048, 32, KIB(96), KIB(96), 0, MIB(6), 0,
     4096, 1530000, 877000},
    {"A100", "NVIDIA A100-SXM4-80GB", 8, 0, 108, GIB(80), 2048, 32, KIB(164), KIB(163), KIB(1),
     MIB(40), MIB(30), 5120, 1410000, 1593000},
    {"L4", "NVIDIA L4", 8, 9, 58, MIB(23034), 1536, 24, KIB(100), KIB(99), KIB(1), MIB(48), MIB(36),
     192, 2040000, 6251000},
    {"H100", "NVIDIA H100 80GB HBM3", 9, 0, 132, GIB(80), 2048, 32, KIB(228), KIB(227), KIB(1),
     MIB(50), MIB(30), 5120, 1980000, 2619000},
    {"B200", "NVIDIA B200", 10, 0, 148, MIB(183359), 2048, 32, KIB(228), KIB(227), KIB(1), MIB(126),
     MIB(76), 8192, 1965000, 3996000},
};
#define NDEVICES (sizeof g_devices / sizeof *g_devices)

const sc_rt_devspec *sc_rt_dev_pick(const char *name)
{
    if (!name || !*name)
        return &g_devices[0];
    for (size_t i = 0; i < NDEVICES; i++)
        if (strcasecmp(name, g_devices[i].key) == 0)
            return &g_devices[i];
    fprintf(stderr, "streamcap: STREAMCAP_DEVICE=%s is not a device the stand-in knows (", name);
    for (size_t i = 1; i < NDEVICES; i++)
        fprintf(stderr, "%s%s", i > 1 ? ", " : "", g_devices[i].key);
    fputs("); emulating the default\n", stderr);
    return &g_devices[0];
}

const sc_rt_devspec *sc_rt_dev(void)
{
    return sc_rt_state_get()->dev;
}

int sc_rt_dev_cc(void)
{
    const sc_rt_devspec *d = sc_rt_dev();
    return d->major * 10 + d->minor;
}
