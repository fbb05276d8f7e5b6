// Reads HdrHistogram V2 base64 strings (one per line) from stdin and decodes each
// with the Java reference implementation, printing one line per histogram:
//   total=<count> max=<max> p50=<v> p90=<v> p99=<v> p99.9=<v>
// With "--hgrm SCALING", also prints the reference outputPercentileDistribution
// (5 ticks per half distance) after each line, followed by a line "#END".
// Run as a single source file: java -cp hdrhistogram.jar DecodeHdr.java [--hgrm 1e6]
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.HdrHistogram.Histogram;

public class DecodeHdr {
    public static void main(String[] args) throws Exception {
        Double scaling = null;
        if (args.length == 2 && args[0].equals("--hgrm")) {
            scaling = Double.valueOf(args[1]);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.isEmpty()) {
                continue;
            }
            Histogram h = Histogram.decodeFromCompressedByteBuffer(
                    ByteBuffer.wrap(Base64.getDecoder().decode(line)), 0);
            System.out.printf("total=%d max=%d p50=%d p90=%d p99=%d p99.9=%d%n",
                    h.getTotalCount(), h.getMaxValue(), h.getValueAtPercentile(50.0),
                    h.getValueAtPercentile(90.0), h.getValueAtPercentile(99.0), h.getValueAtPercentile(99.9));
            if (scaling != null) {
                h.outputPercentileDistribution(System.out, 5, scaling);
                System.out.println("#END");
            }
        }
        System.out.flush();
    }
}
