/**
 * Fencing tokens from etcd locks held with jetcd: the token of a lock holder is the {@code create_revision} of its
 * own lock key (a cluster-wide revision that only grows), never the lease id or the key's version. See docs/etcd.md.
 */
package dev.fencing.etcd;
