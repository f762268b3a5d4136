/* The other unit of linked_typeid.o (see linked_typeid_a.c): the type id
 * of the kernel's task_struct as an immediate (bpf_core_type_id_kernel),
 * which the linker leaves as the compiler wrote it. */
struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

__attribute__((section("socket"), used)) int task_type_id(void *ctx)
{
	return __builtin_btf_type_id(*(struct task_struct *)0, 1) != 0;
}
