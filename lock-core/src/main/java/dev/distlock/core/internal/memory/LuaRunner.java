package dev.distlock.core.internal.memory;

import dev.distlock.core.internal.memory.Commands.Failure;
import dev.distlock.core.internal.memory.Commands.Status;
import dev.distlock.core.internal.redis.script.LockScript;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaInteger;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * Runs a {@link LockScript} with LuaJ as Redis 7 runs it with Lua 5.1: KEYS and ARGV, redis.call and
 * redis.pcall over {@link Commands}, Redis' conversions of replies to Lua values and of the script's
 * result back to a reply, and globals that a script can read but not create. Each script is compiled
 * once. Only the store's thread uses it.
 */
final class LuaRunner {

    private static final Pattern POSITION = Pattern.compile("^@?(user_script:\\d+):? (.*)$", Pattern.DOTALL);

    private final Map<String, Prototype> compiled = new HashMap<>();
    /** The metatable of each run's globals: reads fall through to the shared ones, which no run can change. */
    private final LuaTable globals;

    private @Nullable Run current;

    /** The commands and times of the script that runs now. */
    private record Run(Commands commands, long nowMs, LongSupplier micros) {}

    LuaRunner() {
        this.globals = LuaLibraries.protectedGlobals(LuaLibraries.readOnlyGlobals(redisTable()));
    }

    /**
     * Runs {@code script}: its reply as {@link Commands} writes replies; a {@link Failure} for an error,
     * which names the script as Redis' does.
     */
    @Nullable
    Object run(LockScript script, String[] keys, String[] args, Commands commands, long nowMs, LongSupplier micros) {
        LuaTable env = new LuaTable();
        env.set("KEYS", strings(keys));
        env.set("ARGV", strings(args));
        env.setmetatable(globals);
        current = new Run(commands, nowMs, micros);
        try {
            LuaValue result = new LuaClosure(prototype(script), env).call();
            return toReply(result);
        } catch (LuaError e) {
            Matcher at = POSITION.matcher(String.valueOf(e.getMessage()));
            String line = at.matches() ? at.group(1) : "user_script:?";
            return new Failure(errorMessage(e) + " script: " + script.sha1() + ", on @" + line + ".");
        } catch (StackOverflowError | RuntimeException e) {
            return new Failure("ERR Error running script " + script.sha1() + ": " + e);
        } finally {
            current = null;
        }
    }

    private Prototype prototype(LockScript script) {
        return compiled.computeIfAbsent(script.sha1(), sha -> {
            try {
                byte[] body = script.body().getBytes(StandardCharsets.UTF_8);
                return LuaC.instance.compile(new ByteArrayInputStream(body), "@user_script");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (LuaError e) {
                throw new IllegalStateException("ERR Error compiling script " + script.name() + ": " + e.getMessage());
            }
        });
    }

    private static LuaTable strings(String[] values) {
        LuaTable table = new LuaTable(values.length, 0);
        for (int i = 0; i < values.length; i++) {
            table.set(i + 1, LuaValue.valueOf(values[i]));
        }
        return table;
    }

    /** An error raised by redis.call carries Redis' reply ({err=...}); any other is Lua's own, with its line. */
    private static String errorMessage(LuaError e) {
        LuaValue object = e.getMessageObject();
        if (object != null && object.istable() && isString(object.rawget("err"))) {
            return object.rawget("err").tojstring();
        }
        String message = String.valueOf(e.getMessage());
        Matcher m = POSITION.matcher(message);
        return "ERR " + (m.matches() ? m.group(1) + ": " + m.group(2) : message);
    }

    private LuaTable redisTable() {
        LuaTable redis = new LuaTable();
        redis.set("call", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                LuaValue reply = runCommand(args);
                if (reply.istable() && isString(reply.rawget("err"))) {
                    throw new LuaError(reply);
                }
                return reply;
            }
        });
        redis.set("pcall", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return runCommand(args);
            }
        });
        redis.set("error_reply", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue message) {
                return LuaValue.tableOf(new LuaValue[] {LuaValue.valueOf("err"), message.checkstring()});
            }
        });
        redis.set("status_reply", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue message) {
                return LuaValue.tableOf(new LuaValue[] {LuaValue.valueOf("ok"), message.checkstring()});
            }
        });
        return redis;
    }

    /** redis.call's arguments (strings, or numbers written as Redis 7.0 writes them) run as a command. */
    private LuaValue runCommand(Varargs args) {
        Run run = current;
        if (run == null) {
            throw new LuaError("redis.call outside a script");
        }
        if (args.narg() == 0) {
            return error("ERR Please specify at least one argument for this redis lib call");
        }
        List<String> command = new ArrayList<>(args.narg());
        for (int i = 1; i <= args.narg(); i++) {
            LuaValue arg = args.arg(i);
            if (arg.type() == LuaValue.TNUMBER) {
                command.add(arg instanceof LuaInteger ? arg.tojstring() : NumberText.g17(arg.todouble()));
            } else if (arg.type() == LuaValue.TSTRING) {
                command.add(arg.tojstring());
            } else {
                return error("ERR Lua redis lib command arguments must be strings or integers");
            }
        }
        return toLua(run.commands().run(command, run.nowMs(), run.micros().getAsLong()));
    }

    private static boolean isString(LuaValue value) {
        return value.type() == LuaValue.TSTRING;
    }

    private static LuaValue error(String message) {
        return LuaValue.tableOf(new LuaValue[] {LuaValue.valueOf("err"), LuaValue.valueOf(message)});
    }

    /** Redis' reply to Lua: integer to number, bulk to string, nil to false, array to table, status to {ok=...}. */
    static LuaValue toLua(@Nullable Object reply) {
        if (reply == null) {
            return LuaValue.FALSE;
        }
        if (reply instanceof Long number) {
            return LuaInteger.valueOf(number);
        }
        if (reply instanceof String text) {
            return LuaValue.valueOf(text);
        }
        if (reply instanceof Status status) {
            return LuaValue.tableOf(new LuaValue[] {LuaValue.valueOf("ok"), LuaValue.valueOf(status.text())});
        }
        if (reply instanceof Failure failure) {
            return error(failure.message());
        }
        List<?> items = (List<?>) reply;
        LuaTable table = new LuaTable(items.size(), 0);
        for (int i = 0; i < items.size(); i++) {
            table.set(i + 1, toLua(items.get(i)));
        }
        return table;
    }

    /**
     * The script's result as Redis replies it: string to bulk, number to integer (truncated), true to 1,
     * false and nil to nil, a table with err or ok to an error or status, any other table to an array
     * that ends before its first nil.
     */
    static @Nullable Object toReply(LuaValue value) {
        switch (value.type()) {
            case LuaValue.TSTRING:
                return value.tojstring();
            case LuaValue.TNUMBER:
                return (long) value.todouble();
            case LuaValue.TBOOLEAN:
                return value.toboolean() ? 1L : null;
            case LuaValue.TTABLE:
                if (isString(value.rawget("err"))) {
                    return new Failure(value.rawget("err").tojstring());
                }
                if (isString(value.rawget("ok"))) {
                    return new Status(value.rawget("ok").tojstring());
                }
                List<Object> items = new ArrayList<>();
                for (int i = 1; !value.rawget(i).isnil(); i++) {
                    items.add(toReply(value.rawget(i)));
                }
                return items;
            default:
                return null;
        }
    }
}
