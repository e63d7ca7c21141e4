"""Word pools for generated packages: topics, themes, questions, people.

Small on purpose: a corpus needs plausible, varied text, not an encyclopedia. Each topic has
theme names and (question, answer) pairs; questions repeat across packages as they do in a real
service where authors borrow from each other.
"""

from __future__ import annotations

import json
from importlib import resources

#: Per topic: package names (``names``), theme names (``themes``) and (question, answer) pairs
#: (``qa``). Data, kept as data: ``topics.json`` beside this module.
TOPICS: dict[str, dict[str, list]] = json.loads(
    resources.files("quizkit.generate").joinpath("topics.json").read_text(encoding="utf-8"))

FIRST_NAMES = ["Anna", "Dmitry", "Lena", "Marco", "Sofia", "Jonas", "Olga", "Tom", "Mia",
               "Pavel", "Clara", "Ivan", "Nina", "Felix", "Maria", "Artem", "Lucas", "Eva"]
LAST_NAMES = ["Kowalczyk", "Ivanov", "Schmidt", "Rossi", "Novak", "Petrova", "Meyer", "Smirnov",
              "Bauer", "Fischer", "Volkova", "Weber", "Moreau", "Lindqvist", "Orlova"]
ABOUTS = ["I write quizzes for our Friday pub nights.",
          "Teacher by day, quiz host by night.",
          "Trivia addict. Suggestions welcome.",
          "Making packs for our league since 2021.",
          "Music nerd with too many vinyl records.",
          ""]
PROVIDERS = ["telegram", "vk", "youtube", "discord", "instagram"]
PLATFORMS = ["telegram", "discord", "vk"]
LANGUAGES = ["en", "ru", "de"]
COLORS = ["#2b5876", "#4e4376", "#d9a441", "#3a7bd5", "#c96b3b", "#10ac84", "#e84393",
          "#8fa7c4", "#6d5a45", "#f5c542", "#2e86de", "#b5562c"]
CATEGORIES = [("Geography", "География", "🌍"), ("Music", "Музыка", "🎵"),
              ("Cinema", "Кино", "🎬"), ("Science", "Наука", "🔬"),
              ("History", "История", "📜"), ("Sports", "Спорт", "⚽"),
              ("Party", "Вечеринка", "🎉"), ("Kids", "Для детей", "🧸")]
CATEGORY_OF_TOPIC = {"geography": 0, "music": 1, "cinema": 2, "science": 3, "history": 4,
                     "sports": 5}
VALIDATION_MESSAGES = {
    "package": [("info", "The package has no cover image in one language."),
                ("warning", "The description is shorter than 40 characters.")],
    "version": [("error", "The version has no final round."),
                ("info", "Estimated play time is over two hours.")],
    "round": [("warning", "The round has fewer than three themes."),
              ("info", "The round's themes have different numbers of questions.")],
    "theme": [("warning", "Two questions of the theme have the same answer."),
              ("info", "Every question of this theme needs sound.")],
    "question": [("warning", "The source link redirects to another page."),
                 ("error", "The question's media file could not be found."),
                 ("info", "The question has no hint.")],
}
GAME_NAMES = ["Friday quiz night", "Office league, week {n}", "Birthday party quiz",
              "Practice round", "Stream quiz #{n}", "Family evening", "Club final {n}"]
