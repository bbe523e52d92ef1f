// Checks docs/ci/Jenkinsfile: Groovy's own compiler parses it up to the CONVERSION phase
// (syntax and AST, no class resolution, so the pipeline DSL need not exist here), then
// the AST must hold the declarative structure the gate needs. Jenkins itself is not
// here: what the pipeline plugin would reject beyond Groovy syntax is not checked.
// usage: groovy check_jenkinsfile.groovy JENKINSFILE...  (several files share one JVM start)
// Prints each problem as `FILE: problem`, or `FILE: a Jenkins pipeline ...` when it holds.
// Exit status: 0 every file holds, 1 one does not, 2 usage.
import org.codehaus.groovy.ast.CodeVisitorSupport
import org.codehaus.groovy.ast.expr.ConstantExpression
import org.codehaus.groovy.ast.expr.MethodCallExpression
import org.codehaus.groovy.control.CompilationFailedException
import org.codehaus.groovy.control.CompilationUnit
import org.codehaus.groovy.control.Phases

if (args.length == 0) {
    System.err.println('usage: groovy check_jenkinsfile.groovy JENKINSFILE...')
    System.exit(2)
}

// Every method call with the names of the calls enclosing it (pipeline > post > always > junit),
// and the string constants among its arguments (the shell text of sh '...').
class Calls extends CodeVisitorSupport {
    List<String> path = []
    List<Map> seen = []
    void visitMethodCallExpression(MethodCallExpression call) {
        def name = call.methodAsString ?: '?'
        def strings = []
        call.arguments.visit(new CodeVisitorSupport() {
            void visitConstantExpression(ConstantExpression c) {
                if (c.value instanceof String) strings << c.value
            }
        })
        seen << [name: name, path: path.clone(), text: strings.join('\n')]
        path.push(name)
        super.visitMethodCallExpression(call)
        path.pop()
    }
}

List<String> check(File file) {
    if (!file.canRead())
        return ['not a readable file']
    def unit = new CompilationUnit()
    unit.addSource(file)
    try {
        unit.compile(Phases.CONVERSION)
    } catch (CompilationFailedException e) {
        return ["not valid Groovy: ${e.message}".toString()]
    }
    def calls = new Calls()
    unit.AST.modules.each { it.statementBlock.visit(calls) }

    def problems = []
    def within = { String name, List<String> outer -> calls.seen.findAll { it.name == name && it.path.containsAll(outer) } }
    if (!calls.seen.any { it.name == 'pipeline' && it.path.isEmpty() })
        problems << 'no top-level pipeline { } block'
    if (!within('agent', ['pipeline']))
        problems << 'no agent in the pipeline'
    def shells = within('sh', ['pipeline', 'stages', 'stage', 'steps'])
    if (!shells.any { it.text.contains('apt-get update') && it.text =~ /apt-get install[^\n]*hcts_\*\.deb/ })
        problems << "no sh step with 'apt-get update' and 'apt-get install ... hcts_*.deb' installing hcts"
    if (!shells.any { it.text.contains('hcts-gate.sh') })
        problems << 'no sh step in a stage runs hcts-gate.sh'
    if (within('catchError', ['pipeline']) || within('unstable', ['pipeline']) ||
            shells.any { it.text.contains('hcts-gate.sh') && it.text =~ /\|\||; *true|set \+e/ })
        problems << 'the gate step looks wrapped so its exit status cannot fail the build'
    def always = ['pipeline', 'post', 'always']
    def junit = within('junit', always)
    if (!junit)
        problems << 'no junit step in post { always { } } (a failed gate would publish nothing)'
    else if (!junit.any { it.text.contains('hcts-results/junit.xml') })
        problems << 'the junit step does not read hcts-results/junit.xml'
    def archive = within('archiveArtifacts', always)
    if (!archive)
        problems << 'no archiveArtifacts step in post { always { } }'
    else ['hcts-results/junit.xml', 'hcts-results/report.html'].each { report ->
        if (!archive.any { it.text.contains(report) })
            problems << "archiveArtifacts does not include ${report}".toString()
    }
    problems
}

def failed = false
args.each { path ->
    def problems = check(new File(path))
    problems.each { System.err.println("${path}: ${it}") }
    if (problems)
        failed = true
    else
        println "${path}: a Jenkins pipeline with install, gate and always-published reports"
}
System.exit(failed ? 1 : 0)
