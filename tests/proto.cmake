# Protocol module (proto/): buffers, framing, envelopes, parameters, the
# JSON tokenizer, method table.  test_methods also checks proto/openrpc.json
# against the table; it and test_buf read JSON back with cJSON, which the
# protocol library itself does not use.
set(SC_PROTO_TESTS ${CMAKE_CURRENT_LIST_DIR}/proto)
sc_add_test(proto_buf SOURCES ${SC_PROTO_TESTS}/test_buf.c LIBS sc_proto PkgConfig::CJSON)
sc_add_test(proto_frame SOURCES ${SC_PROTO_TESTS}/test_frame.c LIBS sc_proto)
sc_add_test(proto_rpc SOURCES ${SC_PROTO_TESTS}/test_rpc.c LIBS sc_proto)
sc_add_test(proto_methods SOURCES ${SC_PROTO_TESTS}/test_methods.c LIBS sc_proto PkgConfig::CJSON)
target_compile_definitions(proto_methods PRIVATE SC_PROTO_DIR="${PROJECT_SOURCE_DIR}/proto")
sc_add_test(proto_json SOURCES ${SC_PROTO_TESTS}/test_json.c LIBS sc_proto)
sc_add_test(proto_paths SOURCES ${SC_PROTO_TESTS}/test_paths.c LIBS sc_proto)
sc_add_test(proto_kargs SOURCES ${SC_PROTO_TESTS}/test_kargs.c LIBS sc_proto)
