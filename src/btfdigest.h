/* SPDX-License-Identifier: GPL-2.0 */
/*
 * btfdigest.h - is this the kernel whose BTF the module was built from?
 */
#ifndef _IOCOST_BTFDIGEST_H
#define _IOCOST_BTFDIGEST_H

int iocost_btf_digest_check(void);

#endif
