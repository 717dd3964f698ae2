package dev.fencing.legacy;

/** The application's tests as they always ran: the raw H2 driver. */
class LegacyBillingTest extends LegacyBillingTests {
    @Override
    String url() {
        return "jdbc:h2:mem:legacy-raw;DB_CLOSE_DELAY=-1";
    }
}
