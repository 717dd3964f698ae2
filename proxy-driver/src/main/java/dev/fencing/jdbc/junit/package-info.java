/**
 * A JUnit 5 extension that runs an application's own test suite through the fencing driver, in audit or enforce
 * mode, and reports what the fence refuses. Needs {@code org.junit.jupiter:junit-jupiter-api} on the class path
 * (the driver itself does not depend on it).
 */
package dev.fencing.jdbc.junit;
