// The key types' codes, the values of a kernel's KEY_TYPE: one table for
// every kernel that reads keys, held to the Go side's (tiling.KeyCode) by
// its test.
const uint KEY_U32 = 0, KEY_I32 = 1, KEY_F32 = 2, KEY_U64 = 3, KEY_I64 = 4, KEY_F64 = 5;
