/* SPDX-License-Identifier: ISC */
/*
 * Address lists in rsyncd.conf's host-token syntax, numeric forms only:
 * "ADDR", "ADDR/BITS" or "ADDR/MASK", IPv4 or IPv6, separated by commas
 * or blanks.  Used for "proxy protocol hosts", which rsyncd matches
 * against the socket peer's address only (a host name never matches
 * there, so the configuration loader refuses one).
 */
#ifndef PRSYNCD_HOSTLIST_H
#define PRSYNCD_HOSTLIST_H

#include <stddef.h>
#include <stdint.h>

/* 0 if every token is a numeric address form, else -1 with the first
 * bad token in why. */
int hostlist_check(const char *list, char *why, size_t whylen);

/* 1 if the address (an lchan_addr_key(): family 4 or 6, IPv4-mapped
 * addresses already folded to 4) matches a token of list, else 0.  A
 * NULL or empty list matches nothing. */
int hostlist_match(const char *list, uint8_t family, const uint8_t addr[16]);

#endif
