# Protocol module (proto/): buffers, framing, envelopes, parameters, method
# table.  test_methods also checks proto/openrpc.json against the table.
set(SC_PROTO_TESTS ${CMAKE_CURRENT_LIST_DIR}/proto)
sc_add_test(proto_buf SOURCES ${SC_PROTO_TESTS}/test_buf.c LIBS sc_proto)
sc_add_test(proto_frame SOURCES ${SC_PROTO_TESTS}/test_frame.c LIBS sc_proto)
sc_add_test(proto_rpc SOURCES ${SC_PROTO_TESTS}/test_rpc.c LIBS sc_proto)
sc_add_test(proto_methods SOURCES ${SC_PROTO_TESTS}/test_methods.c LIBS sc_proto)
target_compile_definitions(proto_methods PRIVATE SC_PROTO_DIR="${PROJECT_SOURCE_DIR}/proto")
sc_add_test(proto_json SOURCES ${SC_PROTO_TESTS}/test_json.c LIBS sc_proto)
