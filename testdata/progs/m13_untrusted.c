// Global functions whose pointer argument is tagged arg:untrusted (libbpf's
// __arg_untrusted, btf_prepare_func_args): to a struct, the callee gets an
// untrusted BTF pointer to the vmlinux struct of the pointee's name; to
// void or a primitive type, read-only untrusted memory of size 0
// (rdonly_untrusted_mem), whose loads are probe reads of any size. The
// caller may pass anything (btf_check_func_arg_match). No other tag goes
// with it, and a pointee that names no vmlinux type, or names a type that
// is no struct, is refused.
#include "progs.h"
char _license[] SEC("license") = "GPL";

#define __arg_untrusted __attribute__((btf_decl_tag("arg:untrusted")))
#define __arg_trusted __attribute__((btf_decl_tag("arg:trusted")))
#define __arg_nullable __attribute__((btf_decl_tag("arg:nullable")))

/* Only the name matters: the kernel takes vmlinux's struct of that name. */
struct task_struct {
	unsigned long flags;
};

struct task_struct___m13 {
	unsigned long flags;
};

typedef struct task_struct m13_task_t;

struct m13_local_only {
	int x;
};

/* union bpf_iter_link_info (the uapi header's) is a union of vmlinux. */

enum m13_kind { M13_A, M13_B };

static struct task_struct *(*get_task_btf)(void) = (void *)158;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, __u64);
} m13_vals SEC(".maps");

char m13_mem[16];
__u32 m13_off;

__noinline int m13_ut_task(const volatile struct task_struct *restrict t __arg_untrusted)
{
	return t->flags & 1;
}

__noinline int m13_ut_flavour(struct task_struct___m13 *t __arg_untrusted)
{
	return t->flags & 1;
}

__noinline int m13_ut_typedef(m13_task_t *t __arg_untrusted)
{
	return t->flags & 1;
}

__noinline int m13_ut_void(void *p __arg_untrusted)
{
	return *(int *)p;
}

__noinline int m13_ut_char(char *p __arg_untrusted)
{
	return *(long *)(p + 8);
}

__noinline int m13_ut_enum(enum m13_kind *p __arg_untrusted)
{
	return *(int *)p;
}

__noinline int m13_ut_write_task(struct task_struct *t __arg_untrusted)
{
	t->flags = 0;
	return 0;
}

__noinline int m13_ut_write_void(void *p __arg_untrusted)
{
	*(int *)p = 0;
	return 0;
}

__noinline int m13_ut_nullable(struct task_struct *t __arg_untrusted __arg_nullable)
{
	return bpf_get_prandom_u32();
}

__noinline int m13_ut_local(struct m13_local_only *p __arg_untrusted)
{
	return bpf_get_prandom_u32();
}

__noinline int m13_ut_union(union bpf_iter_link_info *p __arg_untrusted)
{
	return bpf_get_prandom_u32() + *(volatile int *)p + *(volatile int *)((char *)p + 12);
}

__noinline int m13_ut_ptrptr(struct task_struct **p __arg_untrusted)
{
	return bpf_get_prandom_u32();
}

/* vmlinux has static_key_mod only declared: a forward declaration. */
struct static_key_mod;
struct m13_never_defined;

__noinline int m13_ut_fwd(struct static_key_mod *p __arg_untrusted)
{
	return bpf_get_prandom_u32();
}

__noinline int m13_ut_fwd_none(struct m13_never_defined *p __arg_untrusted)
{
	return bpf_get_prandom_u32();
}

__noinline int m13_trusted(struct task_struct *t __arg_trusted)
{
	return t->flags & 1;
}

__noinline int m13_ut_to_trusted(struct task_struct *t __arg_untrusted)
{
	return m13_trusted(t);
}

__noinline int m13_ut_to_helper(struct task_struct *t __arg_untrusted)
{
	unsigned long v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), t);
	return v & 1;
}

__noinline int m13_ut_deref_twice(struct task_struct *t __arg_untrusted)
{
	return *(volatile int *)((char *)t + 4) + (t->flags & 1);
}

// vercheck: accept
SEC("tp_btf/sched_switch")
int m13_untrusted_task(void *ctx)
{
	return m13_ut_task(get_task_btf());
}

/* A scalar, a map value, a variable offset, another type: anything. */
// vercheck: accept
SEC("tp_btf/sched_switch")
int m13_untrusted_anything(void *ctx)
{
	int k = 0;
	void *v = bpf_map_lookup_elem(&m13_vals, &k);

	m13_ut_task(0);
	m13_ut_task((void *)m13_mem);
	m13_ut_task((void *)m13_mem + m13_off);
	m13_ut_task((void *)get_task_btf() + m13_off);
	m13_ut_task(v);
	m13_ut_task((void *)ctx);
	m13_ut_flavour((void *)get_task_btf());
	m13_ut_typedef(get_task_btf());
	return 0;
}

// vercheck: accept
SEC("tp_btf/sched_switch")
int m13_untrusted_mem(void *ctx)
{
	m13_ut_void(get_task_btf());
	m13_ut_void(m13_mem + m13_off);
	m13_ut_void(0);
	m13_ut_char(m13_mem);
	m13_ut_enum((void *)m13_mem);
	return 0;
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_ut_nullable')"
SEC("tp_btf/sched_switch")
int m13_untrusted_nullable(void *ctx)
{
	return m13_ut_nullable(get_task_btf());
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_ut_local')"
SEC("tp_btf/sched_switch")
int m13_untrusted_local(void *ctx)
{
	return m13_ut_local(0);
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_ut_fwd')"
SEC("tp_btf/sched_switch")
int m13_untrusted_fwd(void *ctx)
{
	return m13_ut_fwd(0);
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_ut_fwd_none')"
SEC("tp_btf/sched_switch")
int m13_untrusted_fwd_none(void *ctx)
{
	return m13_ut_fwd_none(0);
}

/* A union is a struct there (btf_type_is_struct). */
// vercheck: accept
SEC("tp_btf/sched_switch")
int m13_untrusted_union(void *ctx)
{
	return m13_ut_union(0);
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_ut_ptrptr')"
SEC("tp_btf/sched_switch")
int m13_untrusted_ptrptr(void *ctx)
{
	return m13_ut_ptrptr(0);
}

// vercheck: reject "Caller passes invalid args into func#2 ('m13_trusted')"
SEC("tp_btf/sched_switch")
int m13_untrusted_to_trusted(void *ctx)
{
	return m13_ut_to_trusted(get_task_btf());
}

// vercheck: reject "only read is supported"
SEC("tp_btf/sched_switch")
int m13_untrusted_write_task(void *ctx)
{
	return m13_ut_write_task(get_task_btf());
}

// vercheck: reject "R1 cannot write into rdonly_untrusted_mem"
SEC("tp_btf/sched_switch")
int m13_untrusted_write_void(void *ctx)
{
	return m13_ut_write_void(get_task_btf());
}

// vercheck: accept
SEC("tp_btf/sched_switch")
int m13_untrusted_helper(void *ctx)
{
	return m13_ut_to_helper(get_task_btf()) + m13_ut_deref_twice(get_task_btf());
}

// vercheck: accept
SEC("tc")
int m13_untrusted_tc(struct __sk_buff *skb)
{
	return m13_ut_task((void *)(long)skb->len) + m13_ut_void(skb);
}
