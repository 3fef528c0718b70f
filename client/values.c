/*
 * values.c - the names of the client's enums on the wire: statuses, memcpy
 * directions and node kinds, the shared ones from core's lists and what
 * cuda mode adds.
 */
#define _POSIX_C_SOURCE 200809L

#include "client_int.h"

#include <errno.h>
#include <string.h>

/* Only the wire-name lists: the client does not link core. */
#include "sc_graph.h"

const char *sc_client_status_name(sc_client_status s)
{
    switch (s) {
    case SC_CLIENT_STATUS_NONE:
        return "none";
    case SC_CLIENT_STATUS_ACTIVE:
        return "active";
    case SC_CLIENT_STATUS_INVALIDATED:
        return "invalidated";
    }
    return "none";
}

/* Indexed by the client's enums, which share core's suffixes
 * (SC_CLIENT_KERNEL, SC_CLIENT_HOST_TO_DEVICE, ...). */
#define SC_CL_NAME(id, name) [SC_CLIENT_##id] = name,
static const char *const kind_names[] = {SC_NODE_KINDS(SC_CL_NAME)};
static const char *const dir_names[] = {SC_MEMCPY_DIRS(SC_CL_NAME)};
#undef SC_CL_NAME

/* As many entries as values (and no index twice: -Woverride-init). */
#define SC_CL_ONE(id, name) +1
_Static_assert(0 SC_NODE_KINDS(SC_CL_ONE) == SC_CLIENT_HOST_CALLBACK + 1,
               "SC_NODE_KINDS names every sc_client_kind");
_Static_assert(0 SC_MEMCPY_DIRS(SC_CL_ONE) == SC_CLIENT_PEER_TO_PEER + 1,
               "SC_MEMCPY_DIRS names every sc_client_dir");
#undef SC_CL_ONE

/* What cuda mode adds, after the shared values (core/sc_graph.h has only
 * those; the daemon's cuda model names the rest). */
static const char *const cuda_dir_names[] = {"host_to_host", "default"};
static const char *const cuda_kind_names[] = {"mem_alloc", "mem_free", "event_record", "event_wait",
                                              "empty",     "graph",    "conditional"};
_Static_assert(SC_CLIENT_DIR_DEFAULT == SC_CLIENT_PEER_TO_PEER + 2, "two cuda-only directions");
_Static_assert(SC_CLIENT_CONDITIONAL == SC_CLIENT_HOST_CALLBACK + 7, "seven cuda-only kinds");

#define NDIRS      (sizeof(dir_names) / sizeof(dir_names[0]))
#define NKINDS     (sizeof(kind_names) / sizeof(kind_names[0]))
#define NCUDAKINDS (sizeof(cuda_kind_names) / sizeof(cuda_kind_names[0]))

/* Name i of the shared table then of the cuda one; NULL past both. */
static const char *name_at(const char *const *shared, size_t ns, const char *const *cuda, size_t nc,
                           unsigned i)
{
    if (i < ns)
        return shared[i];
    return i - ns < nc ? cuda[i - ns] : NULL;
}

static int index_of(const char *const *shared, size_t ns, const char *const *cuda, size_t nc,
                    const char *name)
{
    for (unsigned i = 0; name && i < ns + nc; i++) {
        if (strcmp(name, name_at(shared, ns, cuda, nc, i)) == 0)
            return (int)i;
    }
    return -1;
}

/* The default mode's names stay its four: a default-mode session has no
 * other direction. */
const char *sc_client_dir_name(sc_client_dir d)
{
    return name_at(dir_names, NDIRS, cuda_dir_names, 0, (unsigned)d);
}

int sc_client_dir_parse(const char *name, sc_client_dir *out)
{
    int i = index_of(dir_names, NDIRS, cuda_dir_names, 0, name);
    if (i < 0)
        return -EINVAL;
    *out = (sc_client_dir)i;
    return 0;
}

const char *sc_client_cuda_dir_name(sc_client_dir d)
{
    return name_at(dir_names, NDIRS, cuda_dir_names, 2, (unsigned)d);
}

int sc_client_cuda_dir_parse(const char *name, sc_client_dir *out)
{
    int i = index_of(dir_names, NDIRS, cuda_dir_names, 2, name);
    if (i < 0)
        return -EINVAL;
    *out = (sc_client_dir)i;
    return 0;
}

const char *sc_client_kind_name(sc_client_kind k)
{
    const char *name = name_at(kind_names, NKINDS, cuda_kind_names, NCUDAKINDS, (unsigned)k);
    return name ? name : "unknown";
}

int sc_cl_parse_kind(const char *name, sc_client_kind *out)
{
    int i = index_of(kind_names, NKINDS, cuda_kind_names, NCUDAKINDS, name);
    if (i < 0)
        return -EINVAL;
    *out = (sc_client_kind)i;
    return 0;
}
