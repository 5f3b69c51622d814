package dev.critpath.core.analysis.sender;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RttEstimatorTest {
    /** Samples in µs, then srtt, min RTT and RTO as RFC 6298 and Linux (200 ms minimum above srtt) give them. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "no sample;                           '';                      -1;      -1;      1000000",
        "first sample: rttvar = rtt/2;        100000;                  100000;  100000;  300000",
        "steady: rttvar decays;               100000 100000 100000;    100000;  100000;  300000",
        "a slower sample: srtt moves by 1/8;  100000 180000;           110000;  100000;  340000",
        "4 rttvar under the minimum RTO;      10000 90000;             20000;   10000;   220000",
        "large variance: 4 rttvar;            100000 900000;           200000;  100000;  1150000",
        "negative samples are ignored;        -5 100000 -1;            100000;  100000;  300000",
    })
    void followsRfc6298WithLinuxsMinimum(String what, String samples, long srtt, long minRtt, long rto) {
        RttEstimator e = new RttEstimator(200_000);
        for (String s : samples.trim().isEmpty() ? new String[0] : samples.trim().split(" ")) {
            e.sample(Long.parseLong(s));
        }
        assertEquals(srtt, e.srtt(), "srtt");
        assertEquals(minRtt, e.minRtt(), "min RTT");
        assertEquals(rto, e.rto(), "RTO");
    }
}
