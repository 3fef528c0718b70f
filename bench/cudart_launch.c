/*
 * cudart_launch - kernel launches through the stand-in libcudart.so.13, the
 * way nvcc's generated code makes them (__cudaPushCallConfiguration, then
 * the stub's __cudaPopCallConfiguration and __cudaLaunchKernel).
 *
 *   cudart_launch plain N      N launches on a stream that is not capturing
 *   cudart_launch capture N C [W]
 *                              N launches captured, C per capture (each
 *                              capture ended outside the timed part); with
 *                              W, the program does W ns of host work
 *                              (a spin) before each launch, as a program
 *                              whose launches come at a real runtime's
 *                              pace would
 *   cudart_launch end N R      R captures of N launches; times each
 *                              cudaStreamEndCapture
 *
 * Prints one JSON object: ns per launch (plain, capture) or the median and
 * maximum end time in ms (end).  A capture adds, over its timed parts, the
 * launching thread's kernel time, page faults and wait for a CPU (its run
 * queue time, /proc/.../schedstat), and the cores the process's other
 * threads and, with BENCH_DAEMON_PID, the daemon's threads used: where the
 * wall time beyond the thread's own CPU time went (sched_add).  Whether a
 * daemon is attached is the environment's business (STREAMCAP_SOCKET,
 * STREAMCAP_SYNC_END): bench/cudart runs this program under each condition,
 * interleaved.  BENCH_PIN=1 gives the launching thread a CPU of its own
 * while it captures (pin() below).
 *
 * The kernel is registered with a fat binary as nvcc lays one out (a cubin
 * whose .nv.info section gives the layout of (float *, int)), so captured
 * launches copy their argument values, as they do in real programs.
 */
#define _GNU_SOURCE /* sched_setaffinity, CPU_* */
#include <dirent.h>
#include <elf.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sc_cudart.h"

static void stub(float *p, int n)
{
    (void)p;
    (void)n;
}

/* The fat binary (into b, 8-byte aligned, 1 KiB): container header, one
 * uncompressed sm_90 cubin entry.  The cubin holds an ELF header,
 * .shstrtab, .nv.info._Z4stubPfi with two EIATTR_KPARAM_INFO records
 * (ordinal, offset, size << 18) and the section headers. */
static size_t put(uint8_t *b, size_t at, const void *p, size_t n)
{
    memcpy(b + at, p, n);
    return at + n;
}

static size_t make_cubin(uint8_t *e)
{
    const char names[] = "\0.shstrtab\0.nv.info._Z4stubPfi";
    size_t at = sizeof(Elf64_Ehdr), str_at = at;
    at = put(e, at, names, sizeof names);
    size_t info_at = at;
    for (uint16_t ord = 0; ord < 2; ord++) {
        uint8_t r[16] = {0x04, 0x17, 12, 0};
        uint16_t off = ord ? 8 : 0;
        uint32_t flags = (uint32_t)(ord ? 4 : 8) << 18;
        memcpy(r + 8, &ord, 2);
        memcpy(r + 10, &off, 2);
        memcpy(r + 12, &flags, 4);
        at = put(e, at, r, sizeof r);
    }
    Elf64_Shdr sh[3] = {{0}};
    sh[1] = (Elf64_Shdr){
        .sh_name = 1, .sh_type = SHT_STRTAB, .sh_offset = str_at, .sh_size = sizeof names};
    sh[2] = (Elf64_Shdr){
        .sh_name = 11, .sh_type = 0x70000000, .sh_offset = info_at, .sh_size = at - info_at};
    at = (at + 7) & ~(size_t)7;
    Elf64_Ehdr h = {
        .e_shoff = at, .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = 3, .e_shstrndx = 1};
    memcpy(h.e_ident, ELFMAG, SELFMAG);
    h.e_ident[EI_CLASS] = ELFCLASS64;
    h.e_ident[EI_DATA] = ELFDATA2LSB;
    at = put(e, at, sh, sizeof sh);
    put(e, 0, &h, sizeof h);
    return at;
}

static void *make_fatbin(uint8_t *b)
{
    size_t n = make_cubin(b + 16 + 64);
    uint8_t eh[64] = {0};
    uint16_t kind = 2;
    uint32_t hsize = 64, arch = 90;
    uint64_t size = n, flags = 0x11, total = 64 + n;
    memcpy(eh, &kind, 2);
    memcpy(eh + 4, &hsize, 4);
    memcpy(eh + 8, &size, 8);
    memcpy(eh + 28, &arch, 4);
    memcpy(eh + 40, &flags, 8);
    memcpy(b + 16, eh, sizeof eh);
    uint32_t magic = 0xBA55ED50u;
    uint16_t ver = 1, hs = 16;
    memcpy(b, &magic, 4);
    memcpy(b + 4, &ver, 2);
    memcpy(b + 6, &hs, 2);
    memcpy(b + 8, &total, 8);
    return b;
}

static double clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double now_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

/* The launching thread's own CPU time: what other threads and processes
 * sharing its cores (the feed, the daemon) do not inflate. */
static double cpu_ns(void)
{
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Time on a CPU and waiting for one, ns, of the threads of /proc/PID
 * (PID "self" or a number): thread `me`'s apart from the others'. */
typedef struct sched_use {
    double me_run, me_wait, others_run;
} sched_use;

static void sched_add(const char *pid, pid_t me, double sign, sched_use *u)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%s/task", pid);
    DIR *d = opendir(path);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        pid_t t = (pid_t)atoi(e->d_name);
        if (t <= 0)
            continue;
        char f[160];
        snprintf(f, sizeof f, "/proc/%s/task/%d/schedstat", pid, (int)t);
        FILE *fp = fopen(f, "r");
        unsigned long long run = 0, wait = 0;
        int ok = fp && fscanf(fp, "%llu %llu", &run, &wait) == 2;
        if (fp)
            fclose(fp);
        if (!ok)
            continue;
        if (t == me) {
            u->me_run += sign * (double)run;
            u->me_wait += sign * (double)wait;
        } else {
            u->others_run += sign * (double)run;
        }
    }
    closedir(d);
}

static int check(cudaError_t err, const char *what)
{
    if (err == cudaSuccess)
        return 0;
    fprintf(stderr, "cudart_launch: %s: %s\n", what, cudaGetErrorString(err));
    exit(1);
}

/* One <<<grid, block, 0, s>>> launch as nvcc's host stub makes it. */
static void launch(cudaStream_t s, float *p, int n)
{
    dim3 grid = {64, 1, 1}, block = {256, 1, 1};
    check(__cudaPushCallConfiguration(grid, block, 0, s), "push");
    dim3 g, b;
    size_t shm;
    void *st;
    check(__cudaPopCallConfiguration(&g, &b, &shm, &st), "pop");
    static cudaKernel_t k;
    if (!k)
        check(__cudaGetKernel(&k, (const void *)stub), "get kernel");
    void *args[] = {&p, &n};
    check(__cudaLaunchKernel(k, g, b, args, shm, (cudaStream_t)st), "launch");
}

/* Host work of the program between two launches: the clock read until
 * `ns` have passed. */
static void spin(double ns)
{
    double until = now_ns() + ns;
    while (now_ns() < until)
        ;
}

/* BENCH_PIN=1: the launching thread alone on the first CPU it may use,
 * every other thread of the process (the feed, the client's I/O thread) on
 * the rest, as on a machine where the program's thread has a core of its
 * own; the daemon is pinned off that CPU by the caller (bench/cudart).
 * Done before each timed part, since the feed's threads start with the
 * first capture. */
static void pin(void)
{
    const char *v = getenv("BENCH_PIN");
    cpu_set_t all, mine, rest;
    if (!v || strcmp(v, "1") != 0 || sched_getaffinity(0, sizeof all, &all) != 0 ||
        CPU_COUNT(&all) < 2)
        return;
    CPU_ZERO(&mine);
    rest = all;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (CPU_ISSET(c, &all)) {
            CPU_SET(c, &mine);
            CPU_CLR(c, &rest);
            break;
        }
    }
    pid_t me = (pid_t)syscall(SYS_gettid);
    if (sched_setaffinity(0, sizeof mine, &mine) != 0)
        return;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        pid_t t = (pid_t)atoi(e->d_name);
        if (t > 0 && t != me)
            (void)sched_setaffinity(t, sizeof rest, &rest);
    }
    closedir(d);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: cudart_launch plain N | capture N PER [WORK_NS] | end N ROUNDS\n");
        return 2;
    }
    const char *mode = argv[1];
    long n = atol(argv[2]);
    long per = argc > 3 ? atol(argv[3]) : 10000;
    long work = argc > 4 ? atol(argv[4]) : 0;
    if (n <= 0 || per <= 0 || work < 0)
        return 2;

    /* Kept for the process's life, as nvcc's embedded image is. */
    uint64_t *image = calloc(128, sizeof *image);
    if (!image)
        return 1;
    void **h = __cudaRegisterFatBinary(make_fatbin((uint8_t *)image));
    __cudaRegisterFunction(h, (const char *)stub, (char *)"_Z4stubPfi", "_Z4stubPfi", -1, NULL,
                           NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
    /* The layout was read, so captured launches copy their arguments. */
    size_t off = 0, size = 0;
    check(cudaFuncGetParamInfo((const void *)stub, 1, &off, &size), "cudaFuncGetParamInfo");
    if (off != 8 || size != 4) {
        fprintf(stderr, "cudart_launch: parameter layout not read\n");
        return 1;
    }

    float *p;
    check(cudaMalloc((void **)&p, 1024), "cudaMalloc");
    cudaStream_t s;
    check(cudaStreamCreate(&s), "cudaStreamCreate");

    if (strcmp(mode, "plain") == 0) {
        for (long i = 0; i < 1000; i++)
            launch(s, p, 16);
        double t0 = now_ns(), c0 = cpu_ns();
        for (long i = 0; i < n; i++)
            launch(s, p, 16);
        double t = now_ns() - t0, c = cpu_ns() - c0;
        printf("{\"mode\":\"plain\",\"launches\":%ld,\"ns_per_launch\":%.1f,"
               "\"cpu_ns_per_launch\":%.1f}\n",
               n, t / (double)n, c / (double)n);
    } else if (strcmp(mode, "capture") == 0) {
        double t = 0, c = 0;
        long done = 0;
        const char *daemon = getenv("BENCH_DAEMON_PID");
        pid_t me = (pid_t)syscall(SYS_gettid);
        sched_use self = {0}, dmn = {0};
        double sys = 0, flt = 0;
        while (done < n) {
            long k = n - done < per ? n - done : per;
            check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "begin");
            pin();
            sched_add("self", me, -1, &self);
            if (daemon)
                sched_add(daemon, 0, -1, &dmn);
            struct rusage r0, r1;
            getrusage(RUSAGE_THREAD, &r0);
            double t0 = now_ns(), c0 = cpu_ns();
            for (long i = 0; i < k; i++) {
                if (work)
                    spin((double)work);
                launch(s, p, 16);
            }
            t += now_ns() - t0;
            c += cpu_ns() - c0;
            getrusage(RUSAGE_THREAD, &r1);
            sys += (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) * 1e9 +
                   (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) * 1e3;
            flt += (double)(r1.ru_minflt - r0.ru_minflt);
            sched_add("self", me, 1, &self);
            if (daemon)
                sched_add(daemon, 0, 1, &dmn);
            cudaGraph_t g;
            check(cudaStreamEndCapture(s, &g), "end");
            check(cudaGraphDestroy(g), "destroy");
            done += k;
        }
        printf("{\"mode\":\"capture\",\"launches\":%ld,\"per_capture\":%ld,\"work_ns\":%ld,"
               "\"ns_per_launch\":%.1f,\"cpu_ns_per_launch\":%.1f,"
               "\"sys_ns_per_launch\":%.1f,\"faults\":%.0f,"
               "\"wait_ns_per_launch\":%.1f,\"others_cpu\":%.3f,\"daemon_cpu\":%.3f}\n",
               n, per, work, t / (double)n, c / (double)n, sys / (double)n, flt,
               self.me_wait / (double)n, self.others_run / t, daemon ? dmn.others_run / t : 0.0);
    } else if (strcmp(mode, "end") == 0) {
        long rounds = per;
        double *ms = calloc((size_t)rounds, sizeof *ms);
        if (!ms)
            return 1;
        for (long r = 0; r < rounds; r++) {
            check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "begin");
            for (long i = 0; i < n; i++)
                launch(s, p, 16);
            cudaGraph_t g;
            double t0 = now_ns();
            check(cudaStreamEndCapture(s, &g), "end");
            ms[r] = (now_ns() - t0) / 1e6;
            check(cudaGraphDestroy(g), "destroy");
        }
        qsort(ms, (size_t)rounds, sizeof *ms, cmp);
        printf(
            "{\"mode\":\"end\",\"nodes\":%ld,\"rounds\":%ld,\"median_ms\":%.3f,\"max_ms\":%.3f}\n",
            n, rounds, ms[rounds / 2], ms[rounds - 1]);
        free(ms);
    } else {
        return 2;
    }
    cudaStreamDestroy(s);
    cudaFree(p);
    return 0;
}
