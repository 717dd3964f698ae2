/** A runnable demo: a legacy-style DAO behind HikariCP on embedded H2, fenced by changing only its JDBC URL. */
package dev.fencing.demo;
