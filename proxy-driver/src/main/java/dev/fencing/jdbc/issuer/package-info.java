/**
 * The token issuer that lives in the same database as the epoch table: leases on resources with fencing tokens
 * that never go backwards, expiry on the database clock, and the restore-safety repair ({@link
 * dev.fencing.jdbc.issuer.TokenIssuer}).
 */
package dev.fencing.jdbc.issuer;
