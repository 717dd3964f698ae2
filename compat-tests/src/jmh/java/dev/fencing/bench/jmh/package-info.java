/**
 * JMH micro-benchmarks (built with {@code -Pbenchmarks}): the SQL analyzer cold and cached against JSqlParser's own
 * parse, and the fencing driver's own work per execute over a stubbed database.
 */
package dev.fencing.bench.jmh;
