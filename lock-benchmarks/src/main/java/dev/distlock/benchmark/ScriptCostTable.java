package dev.distlock.benchmark;

import java.util.List;
import java.util.Map;

/**
 * Renders what {@link ScriptCosts} measured as one Markdown table: the two libraries' scripts whole,
 * distlock's commands alone with their sum and the rest, the number argument, and the other layout.
 */
final class ScriptCostTable {

    private ScriptCostTable() {}

    static String markdown(Map<String, List<ScriptCosts.Cost>> costs, int rounds, int pairs, String redisVersion) {
        StringBuilder md = new StringBuilder();
        md.append("## Redis time of a lock+unlock of a free key, inside the scripts\n\n");
        md.append("redis-server ")
                .append(redisVersion)
                .append("; ")
                .append(rounds)
                .append(" rounds of ")
                .append(pairs)
                .append(" passes each, timed by Redis itself (one EVAL per subject and round, loop cost taken off); "
                        + "µs per pass, median (min-max over rounds). Not in these figures: the network, the clients, "
                        + "and Redis reading each EVALSHA's arguments.\n\n");
        md.append("| what | µs |\n|---|---:|\n");
        costs.get("scripts").forEach(c -> row(md, c.subject().name(), c.nanos()));
        double sum = 0;
        for (ScriptCosts.Cost c : costs.get("steps")) {
            row(md, "&nbsp;&nbsp;" + c.subject().name(), c.nanos());
            sum += c.nanos().median();
        }
        double whole = costs.get("scripts").get(1).nanos().median();
        md.append("| &nbsp;&nbsp;sum of these commands alone | ")
                .append(Spread.twoDecimals(sum / 1000))
                .append(" |\n");
        md.append("| &nbsp;&nbsp;the rest: Lua calls, argument tables, replies | ")
                .append(Spread.twoDecimals((whole - sum) / 1000))
                .append(" |\n");
        List<ScriptCosts.Cost> number = costs.get("number");
        md.append("| a fencing-token-sized Lua number passed to redis.call, over its digits as a string (")
                .append(number.get(0).subject().name())
                .append(" less ")
                .append(number.get(1).subject().name())
                .append(") | ")
                .append(Spread.twoDecimals(
                        (number.get(0).nanos().median() - number.get(1).nanos().median()) / 1000))
                .append(" |\n");
        row(md, number.get(2).subject().name(), number.get(2).nanos());
        costs.get("layout").forEach(c -> row(md, c.subject().name(), c.nanos()));
        return md.toString();
    }

    private static void row(StringBuilder md, String name, Spread nanos) {
        md.append("| ")
                .append(name)
                .append(" | ")
                .append(nanos.format(v -> Spread.twoDecimals(v / 1000)))
                .append(" |\n");
    }
}
