package dev.distlock.core.internal.memory;

import org.luaj.vm2.Buffer;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LoadState;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.BaseLib;
import org.luaj.vm2.lib.MathLib;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.TwoArgFunction;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The globals a script sees, made from LuaJ's libraries to behave as Redis' Lua 5.1 does where the
 * lock scripts can tell: {@code string.format('%d', n)} writes every integer below 2^63 (LuaJ's cuts
 * it to 32 bits), {@code tostring} writes numbers with {@code %.14g}, {@code unpack} is global. No io,
 * os, load or require, as in Redis. Reading or creating a global that does not exist is an error, as
 * Redis 7 makes it.
 *
 * <p>Left as LuaJ has it: the {@code ..} operator writes a number in full digits where Lua 5.1 writes
 * {@code %.14g} (1e14 and above, or more than 14 significant digits); the scripts concatenate no such
 * number (tokens go through {@code digits()}), and the differential script tests would show one.
 */
final class LuaLibraries {

    private static final String[] KEPT = {
        "assert",
        "error",
        "ipairs",
        "next",
        "pairs",
        "pcall",
        "rawequal",
        "rawget",
        "rawset",
        "select",
        "setmetatable",
        "getmetatable",
        "tonumber",
        "type",
        "xpcall",
        "string",
        "table",
        "math",
        "_VERSION"
    };

    private LuaLibraries() {}

    /** The shared globals of every script, {@code redis} among them. */
    static LuaTable readOnlyGlobals(LuaTable redis) {
        Globals lua = new Globals();
        lua.load(new BaseLib());
        lua.load(new PackageLib());
        lua.load(new TableLib());
        lua.load(new StringLib());
        lua.load(new MathLib());
        LoadState.install(lua);
        LuaC.install(lua);
        LuaTable globals = new LuaTable();
        for (String name : KEPT) {
            globals.set(name, lua.get(name));
        }
        globals.set("unpack", lua.get("table").get("unpack"));
        globals.set("tostring", tostring(lua.get("tostring")));
        LuaValue string = lua.get("string");
        string.set("format", format(string.get("format")));
        globals.set("redis", redis);
        return globals;
    }

    /** The metatable of a script's own globals: reads fall through to {@code globals}, unknown names fail. */
    static LuaTable protectedGlobals(LuaTable globals) {
        LuaTable meta = new LuaTable();
        meta.set("__index", new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue table, LuaValue name) {
                LuaValue value = globals.rawget(name);
                if (value.isnil()) {
                    throw new LuaError(
                            "Script attempted to access nonexistent global variable '" + name.tojstring() + "'");
                }
                return value;
            }
        });
        meta.set("__newindex", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                throw new LuaError("Attempt to modify a readonly table");
            }
        });
        return meta;
    }

    /** tostring writing numbers as Lua 5.1 does ({@code %.14g}). */
    private static LuaValue tostring(LuaValue luaj) {
        return new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue value) {
                if (value.type() == LuaValue.TNUMBER) {
                    return LuaValue.valueOf(NumberText.g14(value.todouble()));
                }
                return luaj.call(value);
            }
        };
    }

    /**
     * string.format whose {@code %d} and {@code %i} take any integer as C's {@code %ld} (Lua 5.1 casts
     * the number to a long); every other conversion is LuaJ's, one at a time.
     */
    private static LuaValue format(LuaValue luaj) {
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                LuaString pattern = args.checkstring(1);
                Buffer out = new Buffer(pattern.length());
                int arg = 2;
                for (int i = 0; i < pattern.length(); i++) {
                    int c = pattern.luaByte(i);
                    if (c != '%') {
                        out.append((byte) c);
                        continue;
                    }
                    int end = i + 1;
                    while (end < pattern.length() && "-+ #0123456789.".indexOf(pattern.luaByte(end)) >= 0) {
                        end++;
                    }
                    if (end >= pattern.length()) {
                        throw new LuaError("invalid option '%' to 'format'");
                    }
                    int conversion = pattern.luaByte(end);
                    String spec = pattern.substring(i, end + 1).tojstring();
                    if (conversion == '%') {
                        out.append((byte) '%');
                    } else if ((conversion == 'd' || conversion == 'i') && spec.indexOf('.') < 0) {
                        long n = (long) args.checkdouble(arg++);
                        out.append(String.format(spec.substring(0, spec.length() - 1) + "d", n));
                    } else {
                        out.append(luaj.invoke(LuaValue.valueOf(spec), args.arg(arg++))
                                .arg1()
                                .checkstring());
                    }
                    i = end;
                }
                return out.tostring();
            }
        };
    }
}
