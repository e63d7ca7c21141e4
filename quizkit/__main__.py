from quizkit.entry import main

main()
