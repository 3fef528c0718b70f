/* Capture two kernels on one stream and print the stored graph. */
#include <stdio.h>
#include <streamcap.h>

int main(void)
{
    sc_client *c;
    uint64_t s;
    sc_client_captured g;
    if (sc_client_connect(NULL, 5000, &c) != 0) {
        fprintf(stderr, "cannot connect to %s\n", sc_client_default_socket());
        return 1;
    }
    int rc = sc_client_open_session(c, "quickstart", &s);
    rc = rc ? rc : sc_client_begin_capture(c, s, 0);
    rc = rc ? rc : sc_client_record_kernel(c, s, 0, "scale", 4, 256, 0, NULL);
    rc = rc ? rc : sc_client_record_kernel(c, s, 0, "sum", 1, 256, 1024, NULL);
    rc = rc ? rc : sc_client_end_capture(c, s, 0, &g);
    if (rc == 0)
        printf("graph %llu: %llu nodes\n", (unsigned long long)g.graph,
               (unsigned long long)g.node_count);
    else
        fprintf(stderr, "error %d: %s\n", rc, sc_client_errmsg(c));
    sc_client_close(c);
    return rc == 0 ? 0 : 1;
}
