/**
 * Fencing tokens from ZooKeeper locks held with Apache Curator: the token of an {@code InterProcessMutex} or
 * {@code LeaderLatch} holder is the {@code czxid} of its own lock node (the zxid of the transaction that created
 * it, whose high 32 bits are the leader epoch), never the node's sequence suffix. See docs/curator.md.
 */
package dev.fencing.curator;
