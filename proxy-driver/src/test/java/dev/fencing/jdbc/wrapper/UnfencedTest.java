package dev.fencing.jdbc.wrapper;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The driver a URL's scheme needs, named in the error when none on the class path accepts the URL. */
class UnfencedTest {
    @Test
    void theDriverToAddIsTheOneForTheUrlsScheme() {
        assertEquals("add the mariadb driver, org.mariadb.jdbc:mariadb-java-client, to the class path",
                Unfenced.driverToAdd("jdbc:mariadb://127.0.0.1:3306/app"));
        assertEquals("add the mysql driver, com.mysql:mysql-connector-j, to the class path",
                Unfenced.driverToAdd("jdbc:MySQL://db/app"));
        assertEquals("add the JDBC driver for 'jdbc:oracle:' URLs to the class path",
                Unfenced.driverToAdd("jdbc:oracle:thin:@db:1521/app"));
    }
}
