/*
 * cuda_node_json.c - one node of a cuda-mode graph as graph.get writes it.
 */
#include "sc_access_node.h"
#include "sc_cond_node.h"
#include "sc_handlers.h"
#include "sc_kargs_node.h"

static void write_dim3(sc_buf *b, bool *first, const char *key, uint32_t x, uint32_t y, uint32_t z)
{
    sc_json_key(b, first, key);
    sc_buf_printf(b, "[%u,%u,%u]", (unsigned)x, (unsigned)y, (unsigned)z);
}

/* A node of a cuda-mode graph: every kind, and kernels with their 3-D shape. */
void sc_write_cuda_node(sc_buf *b, uint32_t id, const sc_node *n, const sc_graph_page *bodies)
{
    bool first;
    sc_json_obj_begin(b, &first);
    sc_json_member_u64(b, &first, "id", id);
    sc_json_member_cstr(b, &first, "kind", sc_cuda_kind_name((int)n->kind));
    sc_json_member_u64(b, &first, "stream", n->stream);
    sc_json_member_str(b, &first, "name", n->name, n->name_len);
    switch ((int)n->kind) {
    case SC_KIND_KERNEL:
        sc_json_member_str(b, &first, "function_name", n->name, n->name_len);
        sc_json_member_u64(b, &first, "num_blocks", n->num_blocks);
        sc_json_member_u64(b, &first, "threads_per_block", n->threads_per_block);
        sc_json_member_u64(b, &first, "shared_mem", n->shared_mem);
        write_dim3(b, &first, "grid", n->num_blocks, n->grid_y, n->grid_z);
        write_dim3(b, &first, "block", n->threads_per_block, n->block_y, n->block_z);
        sc_kargs_write(b, &first, n);
        break;
    case SC_KIND_MEMCPY:
        sc_json_member_cstr(b, &first, "dir", sc_cuda_dir_name((int)n->dir));
        sc_json_member_u64(b, &first, "size_bytes", n->size_bytes);
        if (n->dir == SC_DIR_PEER_TO_PEER) {
            sc_json_member_u64(b, &first, "src_device", n->src_device);
            sc_json_member_u64(b, &first, "dst_device", n->dst_device);
        }
        break;
    case SC_KIND_MEMSET:
        sc_json_member_u64(b, &first, "size_bytes", n->size_bytes);
        sc_json_member_u64(b, &first, "value", n->value);
        break;
    case SC_KIND_HOST_CALLBACK:
        sc_json_member_str(b, &first, "label", n->name, n->name_len);
        break;
    case SC_KIND_MEM_ALLOC:
        sc_json_member_u64(b, &first, "size_bytes", n->size_bytes);
        break;
    case SC_KIND_EVENT_RECORD:
    case SC_KIND_EVENT_WAIT:
        sc_json_member_u64(b, &first, "event", n->event);
        break;
    default: /* mem_free, empty: the name says it all; bodies, a conditional's fields */
        sc_cond_node_write(b, &first, n);
        sc_write_node_bodies(b, &first, bodies, id, (int)n->kind);
        break;
    }
    sc_access_node_write(b, &first, n);
    sc_json_obj_end(b);
}
