import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;
import java.util.stream.Collectors;

/**
 * Writes the fencing driver's pass-through halves ({@code PassThrough<Interface>} in
 * {@code dev.fencing.jdbc.wrapper}) from the {@code java.sql} interfaces themselves, so the delegation cannot drift
 * from the JDK it is built with. Run by Maven in {@code generate-sources} as {@code java PassThroughGenerator.java
 * <output directory>}; docs/architecture.md says how the halves fit together.
 *
 * <p>Each generated method hands its call to the underlying object, which the fenced class supplies through one
 * accessor. Two kinds of method are never generated, so the fenced class must write them (the compiler says so):
 * those that return an object that could lead back to the raw connection ({@link #LEADS_BACK}) and those that send
 * SQL that may change data ({@link #RUNS_SQL}). Where the interface has a default for one of those, the default
 * stands: the JDK's defaults for them throw and never reach the database.
 */
public final class PassThroughGenerator {
    private static final String PACKAGE = "dev.fencing.jdbc.wrapper";

    /** Return types that lead back to the raw connection; {@code Object} because a value may be a result set. */
    private static final List<Class<?>> LEADS_BACK = List.of(Connection.class, Statement.class, ResultSet.class,
            DatabaseMetaData.class, Array.class, Object.class);

    /** Methods that send SQL which may change data: each runs through the fence in the fenced class. */
    private static final Set<String> RUNS_SQL = Set.of("execute", "executeQuery", "executeUpdate",
            "executeLargeUpdate", "executeBatch", "executeLargeBatch", "addBatch", "insertRow", "updateRow",
            "deleteRow");

    /** Statement's quoting helpers: the JDK's own answers, as the driver has always given them. */
    private static final Set<String> JDK_DEFAULTS_KEPT = Set.of("enquoteLiteral", "enquoteIdentifier",
            "isSimpleIdentifier", "enquoteNCharLiteral");

    /** How the generated methods reach the underlying object. */
    private enum Shape {
        /** An abstract class whose methods call {@code accessor()}. */
        CLASS,
        /**
         * An interface of default methods calling {@code accessor()}: for a statement kind whose fenced class already
         * extends another fenced class (Java has one superclass).
         */
        INTERFACE,
        /**
         * An interface whose {@code setXxx(int, ...)} methods hand a replayable call to {@code bind}: the prepared
         * statement applies the caller's parameters to whichever form of the statement runs.
         */
        BINDINGS
    }

    /**
     * One generated type: the interface it implements, how it reaches the underlying object, and whether a
     * fenced array given as an argument is replaced by the underlying driver's own.
     */
    private record Spec(Class<?> type, Shape shape, String accessor, boolean unwrapsArrays, String purpose) {
        String name() {
            return "PassThrough" + type.getSimpleName();
        }
    }

    private static final List<Spec> SPECS = List.of(
            new Spec(Connection.class, Shape.CLASS, "raw", false,
                    "The plain delegation of {@link FencedConnectionImpl} to the underlying connection."),
            new Spec(Statement.class, Shape.CLASS, "current", false,
                    "The plain delegation of every fenced statement to its current underlying statement."),
            new Spec(PreparedStatement.class, Shape.BINDINGS, "bind", true,
                    "The parameter setters of {@link FencedPreparedStatement}: each records a replayable call."),
            new Spec(CallableStatement.class, Shape.INTERFACE, "callable", true,
                    "The out and named parameters of {@link FencedCallableStatement}, which go straight to the call."),
            new Spec(ResultSet.class, Shape.CLASS, "delegate", false,
                    "The plain delegation of {@link FencedResultSet} to the underlying result set."),
            new Spec(DatabaseMetaData.class, Shape.CLASS, "delegate", false,
                    "The plain delegation of {@link FencedDatabaseMetaData} to the underlying metadata."));

    private PassThroughGenerator() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: java PassThroughGenerator.java <output directory>");
        }
        Path dir = Path.of(args[0]).resolve(PACKAGE.replace('.', '/'));
        Files.createDirectories(dir);
        for (Spec spec : SPECS) {
            Path file = dir.resolve(spec.name() + ".java");
            String source = source(spec);
            // Unchanged sources are left alone, so the compiler's up-to-date check holds.
            if (!Files.exists(file) || !Files.readString(file, StandardCharsets.UTF_8).equals(source)) {
                Files.writeString(file, source, StandardCharsets.UTF_8);
            }
        }
    }

    private static String source(Spec spec) {
        List<Method> methods = Arrays.stream(spec.type().getDeclaredMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .sorted(Comparator.comparing(Method::getName).thenComparing(PassThroughGenerator::parameterList))
                .collect(Collectors.toList());
        List<Method> generated = methods.stream().filter(m -> generates(spec, m)).collect(Collectors.toList());
        String left = methods.stream().filter(m -> !generates(spec, m) && !isKeptDefault(m))
                .map(Method::getName).distinct().collect(Collectors.joining(", "));

        StringBuilder out = new StringBuilder();
        out.append("// Generated by proxy-driver/src/build/PassThroughGenerator.java from ")
                .append(spec.type().getName()).append(": do not edit.\n");
        out.append("package ").append(PACKAGE).append(";\n\n");
        out.append("/**\n * ").append(spec.purpose()).append('\n');
        out.append(wrapped("Left to the fenced class: " + (left.isEmpty() ? "nothing" : left) + ".")).append(" */\n");
        boolean isInterface = spec.shape() != Shape.CLASS;
        String modifiers = isInterface ? "default " : "public ";
        if (isInterface) {
            out.append("interface ").append(spec.name()).append(" extends ").append(spec.type().getName());
        } else {
            out.append("abstract class ").append(spec.name()).append(" implements ").append(spec.type().getName());
        }
        out.append(" {\n");
        if (spec.shape() == Shape.BINDINGS) {
            out.append("    /** Records the call that binds parameter {@code index};")
                    .append(" {@code streamed}: its value can be read once. */\n");
            out.append("    void bind(int index, boolean streamed, ParameterBindings.Binding binding)")
                    .append(" throws java.sql.SQLException;\n");
        } else {
            out.append("    /** The underlying object every method here hands its call to. */\n");
            out.append("    ").append(isInterface ? "" : "abstract ").append(spec.type().getName()).append(' ')
                    .append(spec.accessor()).append("();\n");
        }
        for (Method method : generated) {
            out.append('\n');
            out.append("    @Override\n");
            if (method.isAnnotationPresent(Deprecated.class)) {
                out.append("    @Deprecated\n");
            }
            out.append("    ").append(modifiers).append(typeParameters(method))
                    .append(name(method.getGenericReturnType())).append(' ').append(method.getName()).append('(')
                    .append(parameterDeclarations(method)).append(')').append(throwsClause(method)).append(" {\n");
            out.append("        ").append(body(spec, method)).append('\n');
            out.append("    }\n");
        }
        out.append("}\n");
        return out.toString();
    }

    /** {@code text} as comment lines of at most about 110 characters. */
    private static String wrapped(String text) {
        StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder(" *");
        for (String word : text.split(" ")) {
            if (line.length() + word.length() > 110) {
                out.append(line).append('\n');
                line = new StringBuilder(" *");
            }
            line.append(' ').append(word);
        }
        return out.append(line).append('\n').toString();
    }

    /** Whether {@code method} is delegated here rather than left to the fenced class. */
    private static boolean generates(Spec spec, Method method) {
        if (RUNS_SQL.contains(method.getName()) || isKeptDefault(method) || leadsBack(method.getReturnType())) {
            return false;
        }
        if (spec.shape() == Shape.BINDINGS) {
            return method.getName().startsWith("set") && method.getParameterCount() > 0
                    && method.getParameterTypes()[0] == int.class;
        }
        return true;
    }

    private static boolean isKeptDefault(Method method) {
        return method.isDefault() && method.getDeclaringClass() == Statement.class
                && JDK_DEFAULTS_KEPT.contains(method.getName());
    }

    private static boolean leadsBack(Class<?> type) {
        return LEADS_BACK.stream().anyMatch(t -> t == Object.class ? type == Object.class : t.isAssignableFrom(type));
    }

    private static String body(Spec spec, Method method) {
        Class<?>[] types = method.getParameterTypes();
        if (spec.shape() == Shape.BINDINGS) {
            boolean streamed = Arrays.stream(types).anyMatch(t -> t == InputStream.class || t == Reader.class);
            StringJoiner arguments = new StringJoiner(", ");
            arguments.add("i");
            for (int i = 1; i < types.length; i++) {
                arguments.add(argument(spec, types[i], i + 1));
            }
            return "bind(p1, " + streamed + ", (ps, i) -> ps." + method.getName() + "(" + arguments + "));";
        }
        StringJoiner arguments = new StringJoiner(", ");
        for (int i = 0; i < types.length; i++) {
            arguments.add(argument(spec, types[i], i + 1));
        }
        String call = spec.accessor() + "()." + method.getName() + "(" + arguments + ");";
        return method.getReturnType() == void.class ? call : "return " + call;
    }

    /** Parameter {@code n}, with a fenced array replaced by the underlying one where the spec asks for it. */
    private static String argument(Spec spec, Class<?> type, int n) {
        if (spec.unwrapsArrays() && type == Object.class) {
            return "FencedArray.unwrapped(p" + n + ")";
        }
        if (spec.unwrapsArrays() && type == Array.class) {
            return "(java.sql.Array) FencedArray.unwrapped(p" + n + ")";
        }
        return "p" + n;
    }

    private static String typeParameters(Method method) {
        TypeVariable<Method>[] variables = method.getTypeParameters();
        if (variables.length == 0) {
            return "";
        }
        StringJoiner joined = new StringJoiner(", ", "<", "> ");
        for (TypeVariable<Method> variable : variables) {
            List<Type> bounds = Arrays.stream(variable.getBounds()).filter(b -> b != Object.class)
                    .collect(Collectors.toList());
            joined.add(bounds.isEmpty() ? variable.getName() : variable.getName() + " extends "
                    + bounds.stream().map(PassThroughGenerator::name).collect(Collectors.joining(" & ")));
        }
        return joined.toString();
    }

    private static String parameterDeclarations(Method method) {
        Type[] types = method.getGenericParameterTypes();
        StringJoiner joined = new StringJoiner(", ");
        for (int i = 0; i < types.length; i++) {
            joined.add(name(types[i]) + " p" + (i + 1));
        }
        return joined.toString();
    }

    private static String parameterList(Method method) {
        return Arrays.stream(method.getParameterTypes()).map(Class::getName).collect(Collectors.joining(","));
    }

    private static String throwsClause(Method method) {
        Type[] thrown = method.getGenericExceptionTypes();
        return thrown.length == 0 ? "" : " throws " + Arrays.stream(thrown).map(PassThroughGenerator::name)
                .collect(Collectors.joining(", "));
    }

    /** Source text of a type: java.lang by simple name, everything else fully qualified. */
    private static String name(Type type) {
        if (type instanceof Class<?> c) {
            if (c.isArray()) {
                return name(c.getComponentType()) + "[]";
            }
            if (c.isPrimitive() || "java.lang".equals(c.getPackageName())) {
                return c.getSimpleName();
            }
            return c.getCanonicalName();
        }
        if (type instanceof ParameterizedType p) {
            return name(p.getRawType()) + Arrays.stream(p.getActualTypeArguments()).map(PassThroughGenerator::name)
                    .collect(Collectors.joining(", ", "<", ">"));
        }
        if (type instanceof WildcardType w) {
            if (w.getLowerBounds().length > 0) {
                return "? super " + name(w.getLowerBounds()[0]);
            }
            Type upper = w.getUpperBounds()[0];
            return upper == Object.class ? "?" : "? extends " + name(upper);
        }
        if (type instanceof GenericArrayType g) {
            return name(g.getGenericComponentType()) + "[]";
        }
        if (type instanceof TypeVariable<?> v) {
            return v.getName();
        }
        throw new IllegalArgumentException("no source text for " + type);
    }
}
