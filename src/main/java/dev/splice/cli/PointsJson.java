package dev.splice.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.patch.Point;
import java.util.List;

/** The JSON form of points that {@code splice points --json} and {@code splice patch --json} print. */
final class PointsJson {
    private PointsJson() {}

    /** An array of points: address (hex), function, offset, location, kind, spec, and the refusal when there is one. */
    static ArrayNode points(ObjectMapper mapper, List<Point> points) {
        ArrayNode out = mapper.createArrayNode();
        for (Point p : points) {
            ObjectNode o = out.addObject();
            o.put("address", hex(p.address()));
            o.put("function", p.function());
            o.put("offset", p.offset());
            o.put("location", p.location());
            o.put("kind", p.kind().word());
            o.put("spec", p.spec());
            if (p.refusal() != null) {
                o.put("reason", p.refusal().reason().name());
                o.put("message", p.refusal().message());
            }
        }
        return out;
    }

    static String hex(long value) {
        return "0x" + Long.toHexString(value);
    }
}
