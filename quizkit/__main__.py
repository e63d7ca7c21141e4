from quizkit.cli import main

main()
