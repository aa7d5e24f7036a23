/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iocost_ksyms.bpf.h - kernel variables a BPF program reads as __ksym
 *
 * libbpf resolves each against the running kernel's BTF at load time.  They
 * are declared here rather than in the .bpf.c that uses them because a
 * file-scope extern in a .c file is a checkpatch warning; the module's own
 * kfuncs are part of the model ABI, in include/iocost_model.h.  Include
 * vmlinux.h first: it supplies the types.
 *
 * x86's per-CPU preempt count: the preempt_count field of struct pcpu_hot
 * before Linux 6.15, the int __preempt_count since.  Define
 * IOCOST_HAVE_PCPU_HOT to 1 when the target's vmlinux.h has struct pcpu_hot
 * (the Makefile does, for tests/bpf/), to 0 otherwise.
 */
#ifndef _IOCOST_KSYMS_BPF_H
#define _IOCOST_KSYMS_BPF_H

#if IOCOST_HAVE_PCPU_HOT
extern struct pcpu_hot pcpu_hot __ksym;
#else
extern int __preempt_count __ksym;
#endif

#endif /* _IOCOST_KSYMS_BPF_H */
