/**
 * The {@code fencing} command line: creates the fence's tables, hands out and manages leases, and runs a
 * maintenance job under a lease ({@code fencing exec}), stopping it when the lease is lost.
 */
package dev.fencing.jdbc.cli;
