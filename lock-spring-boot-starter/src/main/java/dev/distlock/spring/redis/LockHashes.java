package dev.distlock.spring.redis;

import dev.distlock.core.LockType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Who holds a lock, decoded from the fields of its Redis hash as lock-core's scripts write them (see the
 * header comments of {@code acquire.lua} and {@code rw-settle.lua}). An owner id is
 * {@code <client id>:<thread or handle>}; a reentrant or fair lock's hash keeps a field per owner and
 * {@code ~token}, the grant's fencing token; a read/write lock's keeps {@code r:<owner>} and {@code w:<owner>}
 * per hold, with the token in {@code rt:}/{@code wt:}; a semaphore's ({@code ~n} set) keeps {@code p:<owner>} per
 * holder, with the token in {@code t:<owner>} (see {@code sem-settle.lua}). Infrastructure of the starter, not API.
 */
public final class LockHashes {

    private LockHashes() {}

    /**
     * Whether the hash shows a hold of {@code type} by an owner of client {@code clientId} whose grant is
     * not newer than {@code token}: a later grant (another owner's, after this one was lost) has a larger
     * token. A lock this client's threads hand on between themselves keeps the first thread's owner id in
     * Redis, so any owner of the client counts; the client's own gates keep its threads apart.
     */
    public static boolean heldByClient(Map<String, String> fields, LockType type, String clientId, long token) {
        String prefix = switch (type) {
            case READ -> "r:";
            case WRITE -> "w:";
            case SEMAPHORE, FAIR_SEMAPHORE -> "p:";
            default -> "";
        };
        String owner = prefix + clientId + ":";
        for (Map.Entry<String, String> field : fields.entrySet()) {
            if (!field.getKey().startsWith(owner)) {
                continue;
            }
            String granted = prefix.isEmpty()
                    ? fields.get("~token")
                    : fields.get(tokenField(prefix, field.getKey().substring(2)));
            if (granted == null || parse(granted) <= token) {
                return true;
            }
        }
        return false;
    }

    /** Every holder the hash shows: the owners of an exclusive lock, or the read and write holds of a read/write lock. */
    public static List<LockHolder> holders(Map<String, String> fields) {
        List<LockHolder> holders = new ArrayList<>();
        boolean readWrite = fields.containsKey("mode");
        boolean semaphore = fields.containsKey("~n");
        for (Map.Entry<String, String> field : fields.entrySet()) {
            String name = field.getKey();
            if (semaphore) {
                if (name.startsWith("p:")) {
                    String owner = name.substring(2);
                    holders.add(new LockHolder(owner, clientOf(owner), "SEMAPHORE", token(fields.get("t:" + owner))));
                }
            } else if (readWrite && (name.startsWith("r:") || name.startsWith("w:"))) {
                String owner = name.substring(2);
                char kind = name.charAt(0);
                holders.add(new LockHolder(
                        owner,
                        clientOf(owner),
                        kind == 'w' ? "WRITE" : "READ",
                        token(fields.get(kind + "t:" + owner))));
            } else if (!readWrite && !name.startsWith("~")) {
                holders.add(new LockHolder(name, clientOf(name), "EXCLUSIVE", token(fields.get("~token"))));
            }
        }
        return holders;
    }

    /** The field of a hold's token: {@code t:<owner>} for a semaphore's permits, {@code rt:}/{@code wt:} for read/write. */
    private static String tokenField(String prefix, String owner) {
        return prefix.equals("p:") ? "t:" + owner : prefix.charAt(0) + "t:" + owner;
    }

    /** The client part of an owner id {@code <client id>:<thread or handle>}. */
    public static String clientOf(String owner) {
        int colon = owner.indexOf(':');
        return colon < 0 ? owner : owner.substring(0, colon);
    }

    private static Long token(String digits) {
        return digits == null ? null : parse(digits);
    }

    private static long parse(String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE; // not a token we know: do not take it as ours
        }
    }
}
