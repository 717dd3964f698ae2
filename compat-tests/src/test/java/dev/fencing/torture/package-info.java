/**
 * Torture tests: randomized histories of owners, leases, pauses and injected faults run through the fencing driver,
 * checked afterwards for stale commits, lost acknowledged commits and leftovers of refused writes (SPEC C2-C4).
 */
package dev.fencing.torture;
